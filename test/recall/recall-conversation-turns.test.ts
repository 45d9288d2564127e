import test from "ava";
import type { z } from "zod";
import type { recallOutput } from "../../gateway-mcp/tools/recall.js";
import type { recallAtTimeOutput } from "../../gateway-mcp/tools/recall-at-time.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { UNTHROTTLED } from "../mcp/post-mcp.js";
import { callTool, connectSdkClient } from "../mcp/sdk-client.js";
import { rest } from "../rest/rest-client.js";

// Turn-level recall over conversations (ADR 0530, docs/recall.md "Conversations"), through REST and
// MCP against the real service (PostgreSQL, built-in models): each turn of a conversation session is
// ranked on its own, so several turns of one session are hits, each with the session's memoryId and
// its own text and time; every other memory is still one hit, however many chunks it has.

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

const T0 = new Date("2026-03-02T09:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();

const STANDUP = [
  { speaker: "Anna", content: "The Zeppelin migration starts on Monday morning.", at: at(0) },
  { speaker: "Ben", content: "Lunch is at noon in the canteen today.", at: at(1) },
  {
    speaker: "Carla",
    content: "Before the Zeppelin migration we still need a database backup.",
    at: at(2),
  },
  { speaker: "Dev", content: "The printer on floor two is jammed again.", at: at(3) },
  {
    speaker: "Anna",
    content: "After the Zeppelin migration we retire the old cluster.",
    at: at(4),
  },
];
const ZEPPELIN_TURNS = STANDUP.filter((m) => m.content.includes("Zeppelin")).map(
  (m) => `${m.speaker}: ${m.content}`,
);

interface RestHit {
  memoryId: string;
  snippet: string;
  score: number;
  source: string;
  hops: number;
}

const tenantWithWrites = () =>
  service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });

async function storeSession(tenant: TestTenant): Promise<string> {
  const res = await rest(service.httpUrl, "/api/v1/conversations", {
    token: tenant.token,
    body: { title: "Standup", sessionId: "2026-03-02", messages: STANDUP },
  });
  if (res.status !== 201) throw new Error(`conversation: ${res.status} ${res.text}`);
  return (res.body as { memory: { memoryId: string } }).memory.memoryId;
}

async function restRecall(tenant: TestTenant, body: Record<string, unknown>): Promise<RestHit[]> {
  const res = await rest(service.httpUrl, "/api/memory/recall", { token: tenant.token, body });
  if (res.status !== 200) throw new Error(`recall: ${res.status} ${res.text}`);
  return (res.body as { hits: RestHit[] }).hits;
}

async function chunkCount(tenant: TestTenant, memoryId: string): Promise<number> {
  const [row] = await service.storage.db.withTenant(
    tenant.tenantId,
    (tx) => tx<{ n: number }[]>`select count(*)::int as n from chunks where memory_id = ${memoryId}`,
  );
  return row?.n ?? 0;
}

/** A text of several chunks, every paragraph about the query's subject. */
const longText = (label: string) =>
  Array.from(
    { length: 14 },
    (_, i) =>
      `${label} paragraph ${i + 1}: the Zeppelin migration plan covers servers, storage, network, ` +
      `monitoring, alerting, runbooks, owners, rollback steps, test windows and the communication ` +
      `with every team that depends on the old cluster, section ${i + 1} of the ${label} plan, ` +
      `with the checklists, contacts and dates the teams agreed on in their last planning meeting.`,
  ).join("\n\n");

test("REST: several turns of one session are hits, each with the session's memoryId and its own turn", async (t) => {
  const tenant = await tenantWithWrites();
  const sessionId = await storeSession(tenant);
  const hits = await restRecall(tenant, { query: "Zeppelin migration", k: 10, hops: 0 });
  const ofSession = hits.filter((h) => h.memoryId === sessionId);
  t.true(ofSession.length >= ZEPPELIN_TURNS.length, JSON.stringify(hits));
  const snippets = ofSession.map((h) => h.snippet);
  t.is(new Set(snippets).size, snippets.length, "each hit is a different turn");
  for (const turn of ZEPPELIN_TURNS) t.true(snippets.includes(turn), `${turn} is a hit`);
  // The turns about the query come first, best first.
  t.deepEqual(snippets.slice(0, ZEPPELIN_TURNS.length).sort(), [...ZEPPELIN_TURNS].sort());
  const scores = hits.map((h) => h.score);
  t.deepEqual(
    scores,
    [...scores].sort((a, b) => b - a),
  );
  t.true(ofSession.every((h) => h.hops === 0));
});

test("MCP: service_recall lists the session's turns; service_recall_at_time gives each turn's time", async (t) => {
  const tenant = await tenantWithWrites();
  const sessionId = await storeSession(tenant);
  const connected = await connectSdkClient(service.httpUrl, tenant.token, "json");
  try {
    const recalled = await callTool<z.output<typeof recallOutput>>(connected.client, "service_recall", {
      query: "Zeppelin migration",
      k: 5,
      hops: 0,
    });
    const contents = recalled.hits.filter((h) => h.memory_id === sessionId).map((h) => h.content);
    t.deepEqual(contents.slice(0, ZEPPELIN_TURNS.length).sort(), [...ZEPPELIN_TURNS].sort());

    const timed = await callTool<z.output<typeof recallAtTimeOutput>>(
      connected.client,
      "service_recall_at_time",
      { query: "Zeppelin migration", k: 3 },
    );
    t.is(timed.hits.length, 3);
    for (const hit of timed.hits) {
      t.is(hit.memory_id, sessionId);
      const turn = STANDUP.find((m) => `${m.speaker}: ${m.content}` === hit.content);
      t.truthy(turn, hit.content);
      t.is(hit.valid_from, turn?.at ?? "a turn");
    }
    // as_of sees only the turns said by then: the first two, one of them about Zeppelin.
    const early = await callTool<z.output<typeof recallAtTimeOutput>>(
      connected.client,
      "service_recall_at_time",
      { query: "Zeppelin migration", k: 5, as_of: at(1) },
    );
    t.deepEqual(
      early.hits.map((h) => h.content),
      [
        "Anna: The Zeppelin migration starts on Monday morning.",
        "Ben: Lunch is at noon in the canteen today.",
      ],
    );
  } finally {
    await connected.close();
  }
});

test("REST: every other memory stays one hit, however many of its chunks match — also with a conversation: source", async (t) => {
  const tenant = await tenantWithWrites();
  const document = await rest(service.httpUrl, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: "semantic", title: "Migration plan", content: longText("document") },
  });
  t.is(document.status, 201, document.text);
  // A memory whose source looks like a session's but was not written by the conversations route.
  const lookalike = await rest(service.httpUrl, "/api/v1/memory/entries", {
    token: tenant.token,
    body: {
      memory_type: "episodic",
      title: "Pasted chat",
      content: longText("pasted"),
      source: "conversation:pasted",
    },
  });
  t.is(lookalike.status, 201, lookalike.text);
  const ids = [document, lookalike].map((r) => (r.body as { memoryId: string }).memoryId);
  for (const id of ids) t.true((await chunkCount(tenant, id)) > 1, "the memory has several chunks");
  const sessionId = await storeSession(tenant);

  const hits = await restRecall(tenant, { query: "Zeppelin migration plan", k: 10, hops: 0 });
  for (const id of ids) t.is(hits.filter((h) => h.memoryId === id).length, 1, `${id} once`);
  t.true(hits.filter((h) => h.memoryId === sessionId).length >= 2, "the session's turns each");
});
