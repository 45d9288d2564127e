import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { UNTHROTTLED } from "../mcp/post-mcp.js";
import { recallHits, rest } from "./rest-client.js";

// The time channel and time-only questions over REST, with conversations stored through their route
// (ADR 0610): in a workspace of many older turns that share the question's words, "what did we talk
// about yesterday?" brings yesterday's turns — which neither channel's own top 50 holds — and only them
// first; a question that names a topic keeps the soft condition.

let service: TestService;
let tenant: TestTenant;

interface Hit {
  memoryId: string;
  snippet: string;
  explanation?: { timeMatch?: number; queryTime?: { text: string } };
}

const utcDay = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset));
};

async function storeSession(
  sessionId: string,
  messages: { speaker: string; content: string; at: Date }[],
  owner: TestTenant = tenant,
) {
  const res = await rest(service.httpUrl, "/api/v1/conversations", {
    token: owner.token,
    body: {
      title: `Team chat ${sessionId}`,
      sessionId,
      messages: messages.map((m) => ({ ...m, at: m.at.toISOString() })),
    },
  });
  if (res.status !== 201) throw new Error(`conversation: ${res.status} ${res.text}`);
}

const recall = (query: string) =>
  recallHits<Hit>(service.httpUrl, tenant.token, { query, k: 10, hops: 0, explain: true });

const JOBS = {
  old: "Mira: My job is at the bakery on Main Street.",
  recent: "Mira: My job is at the bank on Main Street.",
};

const YESTERDAY = [
  "Ben: The printer on floor two is jammed again.",
  "Carla: Lunch moves to the Italian place.",
];

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  // 120 older turns over four months, each talking about what we talked about.
  for (let s = 0; s < 4; s++) {
    const day = utcDay(-20 - 30 * s);
    await storeSession(
      `older-${s}`,
      Array.from({ length: 30 }, (_, i) => ({
        speaker: ["Anna", "Jonas", "Mira"][i % 3] ?? "Anna",
        content: `We talked about what we talk about, point ${s * 30 + i}: the roadmap talk we had.`,
        at: new Date(day.getTime() + (9 * 60 + i) * 60_000),
      })),
    );
  }
  const yesterday = utcDay(-1);
  await storeSession(
    "yesterday",
    YESTERDAY.map((line, i) => {
      const [speaker = "", content = ""] = line.split(": ");
      return { speaker, content, at: new Date(yesterday.getTime() + (10 * 60 + i) * 60_000) };
    }),
  );
});

test.serial(
  "an episodic turn's recency is its message time: of two like statements the newer leads",
  async (t) => {
    // An imported history: every turn stored now, the two statements said 200 days apart (a knowledge
    // update). Each order in its own workspace: the newer leads in both, whichever it is.
    for (const [newer, older] of [
      [JOBS.recent, JOBS.old],
      [JOBS.old, JOBS.recent],
    ] as const) {
      const owner = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
      // Other things Mira said: the reranker lifts only what stands above the head's median (ADR 0490).
      await storeSession(
        "mira-other",
        [
          "The weather was fine.",
          "Lunch was late.",
          "The train is slow.",
          "My bike is red.",
          "Tea, please.",
        ].map((content, i) => ({
          speaker: "Mira",
          content,
          at: new Date(utcDay(-100).getTime() + i * 60_000),
        })),
        owner,
      );
      for (const [line, daysAgo] of [
        [older, 200],
        [newer, 2],
      ] as const) {
        const [speaker = "", content = ""] = line.split(": ");
        await storeSession(
          `job-${daysAgo}`,
          [{ speaker, content, at: new Date(utcDay(-daysAgo).getTime() + 36e6) }],
          owner,
        );
      }
      const hits = await recallHits<Hit>(service.httpUrl, owner.token, {
        query: "Where is Mira's job?",
        k: 10,
        hops: 0,
      });
      t.deepEqual(
        hits.map((h) => h.snippet).filter((line) => line === newer || line === older),
        [newer, older],
      );
    }
  },
);

test.after.always(async () => {
  await service?.stop();
});

test.serial("'what did we talk about yesterday?' brings yesterday's turns first", async (t) => {
  for (const query of ["What did we talk about yesterday?", "Worüber haben wir gestern gesprochen?"]) {
    const hits = await recall(query);
    t.deepEqual(
      hits
        .slice(0, 2)
        .map((h) => h.snippet)
        .sort(),
      [...YESTERDAY].sort(),
      query,
    );
    t.is(hits[0]?.explanation?.timeMatch, 1, query);
    t.true((hits[2]?.explanation?.timeMatch ?? 1) < 0.01, query);
  }
});

test.serial(
  "a question that names a topic keeps the soft condition: the topic's older turns still come",
  async (t) => {
    const hits = await recall("What did we say about the roadmap talk yesterday?");
    t.true(hits.length === 10);
    // The roadmap turns match the topic; the time condition alone does not push them out.
    t.true(hits.filter((h) => h.snippet.includes("roadmap")).length >= 5);
  },
);

test.serial("without a time expression nothing of this applies", async (t) => {
  const hits = await recall("What did we talk about?");
  t.true(hits.every((h) => h.explanation?.queryTime === undefined && h.explanation?.timeMatch === undefined));
  t.false(hits.slice(0, 2).some((h) => YESTERDAY.includes(h.snippet)));
});
