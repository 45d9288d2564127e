import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { clientsFor } from "../recall/recall-test-kit.js";
import { rest } from "./rest-client.js";

// Time-aware recall over REST (issue 50 item 3, ADR 0491): a time expression in the query becomes a
// soft condition on the memories' valid time, relative to the request time or asOf, shown in explain;
// a query without one ranks exactly as before, whatever the memories' valid times.

let service: TestService;
let url: string;
let tenant: TestTenant;
const ids: Record<string, string> = {};
const DAY = 86_400_000;

interface Hit {
  memoryId: string;
  score: number;
  explanation?: { queryTime?: { text: string; from: string; to: string }; timeMatch?: number };
}

async function store(content: string): Promise<string> {
  const res = await rest(url, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: "episodic", title: content.slice(0, 20), content },
  });
  if (res.status !== 201) throw new Error(`store: ${res.status} ${res.text}`);
  return (res.body as { memoryId: string }).memoryId;
}

/** Valid time as the conversations route sets it from message times. */
async function validFrom(memoryId: string, at: Date) {
  await service.storage.db.withTenant(tenant.tenantId, (tx) =>
    Promise.all([
      tx`update memories set valid_from = ${at} where id = ${memoryId}`,
      // A hit's time is its chunk's (a conversation turn keeps its message time).
      tx`update chunks set valid_from = ${at} where memory_id = ${memoryId}`,
    ]).then(() => undefined),
  );
}

async function recall(body: Record<string, unknown>): Promise<Hit[]> {
  const res = await rest(url, "/api/memory/recall", {
    token: tenant.token,
    body: { k: 10, hops: 0, ...body },
  });
  if (res.status !== 200) throw new Error(`recall: ${res.status} ${res.text}`);
  return (res.body as { hits: Hit[] }).hits;
}

const utcDay = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset));
};

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  url = service.httpUrl;
  tenant = await service.createTenant({ plan: "api" });
  ids.old = await store("Anna: Der Release der Plattform wird auf Freitag verschoben.");
  ids.yesterday = await store("Anna: Der Release bleibt beim Montag.");
  ids.other = await store("Jonas: Das Budget für das Marketing ist genehmigt.");
  await validFrom(ids.old ?? "", new Date(utcDay(-40).getTime() + 12 * 3_600_000));
  await validFrom(ids.yesterday ?? "", new Date(utcDay(-1).getTime() + 12 * 3_600_000));
  await validFrom(ids.other ?? "", new Date(utcDay(-1).getTime() + 9 * 3_600_000));
});

test.after.always(async () => {
  await service?.stop();
});

test.serial("without a time expression the older, better-matching memory leads", async (t) => {
  const hits = await recall({ query: "Was hat Anna zum Release der Plattform gesagt?", explain: true });
  t.is(hits[0]?.memoryId, ids.old);
  t.true(hits.every((h) => h.explanation?.queryTime === undefined && h.explanation?.timeMatch === undefined));
});

test.serial("'gestern' / 'yesterday' bring yesterday's memory first and explain the interval", async (t) => {
  for (const query of [
    "Was hat Anna gestern zum Release der Plattform gesagt?",
    "What did Anna say about the release yesterday?",
  ]) {
    const hits = await recall({ query, explain: true });
    t.is(hits[0]?.memoryId, ids.yesterday, query);
    const time = hits[0]?.explanation?.queryTime;
    t.is(time?.from, utcDay(-1).toISOString(), query);
    t.is(time?.to, utcDay(0).toISOString(), query);
    t.is(hits[0]?.explanation?.timeMatch, 1, query);
    const old = hits.find((h) => h.memoryId === ids.old);
    t.true((old?.explanation?.timeMatch ?? 1) < 0.01, query);
  }
});

test.serial("relative to as_of when given (gRPC): 'vorgestern' as of tomorrow is yesterday", async (t) => {
  const asOf = new Date(utcDay(1).getTime() + 10 * 3_600_000);
  const { recall: grpc } = clientsFor(service, tenant);
  const response = await grpc.recall({
    query: "Was hat Anna vorgestern zum Release der Plattform gesagt?",
    k: 10,
    asOf: timestampFromDate(asOf),
    explain: true,
  });
  t.is(response.hits[0]?.memoryId, ids.yesterday);
  const from = response.hits[0]?.explanation?.queryTime?.from;
  t.deepEqual(from === undefined ? undefined : timestampDate(from), utcDay(-1));
});

test.serial(
  "a query without a time expression ranks exactly the same whatever the valid times",
  async (t) => {
    const query = { query: "Release Plattform Budget Anna" };
    const before = await recall(query);
    await validFrom(ids.old ?? "", new Date(Date.now() - 400 * DAY));
    await validFrom(ids.yesterday ?? "", new Date(Date.now() - 2 * DAY));
    const after = await recall(query);
    t.deepEqual(
      after.map((h) => [h.memoryId, h.score]),
      before.map((h) => [h.memoryId, h.score]),
    );
  },
);

test.serial(
  "a holiday names its days: 'an Weihnachten' as of February is last December's (ADR 0720)",
  async (t) => {
    const christmas = await store("Anna: Wir haben den Baum geschmückt und Plätzchen gebacken.");
    const november = await store("Anna: Wir haben Plätzchen gebacken, den Baum geschmückt und gesungen.");
    await validFrom(christmas, new Date("2025-12-25T15:00:00Z"));
    await validFrom(november, new Date("2025-11-20T15:00:00Z"));
    const { recall: grpc } = clientsFor(service, tenant);
    const ask = (query: string) =>
      grpc.recall({ query, k: 10, asOf: timestampFromDate(new Date("2026-02-01T10:00:00Z")), explain: true });
    const response = await ask("Was haben Anna und ich an Weihnachten gemacht?");
    t.is(response.hits[0]?.memoryId, christmas);
    const time = response.hits[0]?.explanation?.queryTime;
    t.is(time?.text, "an Weihnachten");
    t.deepEqual(
      time?.from === undefined ? undefined : timestampDate(time.from),
      new Date("2025-12-24T00:00:00Z"),
    );
    t.deepEqual(
      time?.to === undefined ? undefined : timestampDate(time.to),
      new Date("2025-12-27T00:00:00Z"),
    );
    // Without the holiday the memory that matches more of the words leads.
    const plain = await ask("Was haben Anna und ich gebacken, geschmückt und gesungen?");
    t.is(plain.hits[0]?.memoryId, november);
  },
);

test.serial(
  "a question after the latest word puts the newest memory on its subject first (ADR 0740)",
  async (t) => {
    const march = await store("Jonas: Der Umzug ins neue Büro findet im März statt.");
    const april = await store("Jonas: Der Umzug ins neue Büro wird auf April verschoben.");
    const newest = await store(
      "Jonas: Der Umzug ins neue Büro ist nach langer Diskussion mit der Geschäftsleitung und dem Vermieter abgesagt.",
    );
    await validFrom(march, new Date(Date.now() - 40 * DAY));
    await validFrom(april, new Date(Date.now() - 10 * DAY));
    const newestAt = new Date(Date.now() - DAY);
    await validFrom(newest, newestAt);
    for (const query of [
      "Was ist der aktuelle Stand beim Umzug ins neue Büro?",
      "What is the latest on the Umzug ins neue Büro?",
    ]) {
      const hits = await recall({ query, explain: true });
      t.is(hits[0]?.memoryId, newest, query);
      // explain names the latest word and the interval it stood for: from an hour before the newest.
      const time = hits[0]?.explanation?.queryTime;
      t.regex(time?.text ?? "", /^(?:aktuelle|latest)$/u, query);
      t.is(new Date(time?.from ?? 0).getTime(), newestAt.getTime() - 3_600_000, query);
    }
    // Without a latest word the shorter, older memories match better and come first.
    const plain = await recall({ query: "Was ist beim Umzug ins neue Büro der Stand?" });
    t.not(plain[0]?.memoryId, newest);
  },
);
