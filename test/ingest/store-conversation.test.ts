import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import test from "ava";
import type { z } from "zod";
import type { recallAtTimeOutput } from "../../gateway-mcp/tools/recall-at-time.js";
import type { storedConversationSchema } from "../../gateway-mcp/tools/store-conversation.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { UNTHROTTLED } from "../mcp/post-mcp.js";
import { callTool, connectSdkClient } from "../mcp/sdk-client.js";
import { clientsFor } from "../recall/recall-test-kit.js";
import { errorOf, rest } from "../rest/rest-client.js";
import { expectFailure, startIngestService } from "./ingest-test-kit.js";

// Conversations (issue 48 item 3, docs/ingest.md "Conversations") over REST POST /api/v1/conversations,
// gRPC IngestService.StoreConversation and MCP service_store_conversation, with the real built-in
// embedder: a session is one episodic memory with a chunk per turn, valid from the message time;
// re-sends add nothing, appends add only new turns, sessions of a conversation are linked in order.

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

const T0 = new Date("2026-03-02T09:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

interface Stored {
  sessionId: string;
  memory: { memoryId: string; status: string; chunksWritten: number; unchanged?: boolean };
  turnsAdded: number;
  turnsSkipped: number;
  turnsTotal: number;
  previousSessionMemoryId: string | null;
  nextSessionMemoryId: string | null;
}

const post = (tenant: TestTenant, body: unknown) =>
  rest(service.httpUrl, "/api/v1/conversations", { token: tenant.token, body });

const tenantWithWrites = () => service.createTenant({ limitsOverride: UNTHROTTLED });

async function chunksOf(tenant: TestTenant, memoryId: string) {
  return service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ content: string; valid_from: Date; lexemes: string[] }[]>`
      select content, valid_from, tsvector_to_array(tsv) as lexemes from chunks
      where memory_id = ${memoryId} order by ordinal`,
  );
}

async function versionsOf(tenant: TestTenant, memoryId: string) {
  return service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ id: string; valid_to: Date | null; memory_type: string; kind: string; valid_from: Date }[]>`
      select id, valid_to, memory_type, kind, valid_from from memories
      where lineage_id = (select lineage_id from memories where id = ${memoryId}) order by recorded_at`,
  );
}

const FIRST = [
  { speaker: "Anna", content: "Shall we move the kickoff to Thursday?", at: at(0).toISOString() },
  {
    speaker: "Ben",
    content: "Thursday works, I will book the Zeppelin meeting room.",
    at: at(1).toISOString(),
  },
  { speaker: "Anna", content: "Great, and please invite the auditors too.", at: at(2).toISOString() },
];

test("REST: a session is one episodic memory, a chunk per turn with its speaker and message time, no time in the index text", async (t) => {
  const tenant = await tenantWithWrites();
  const answer = await post(tenant, { title: "Kickoff planning", sessionId: "s-1", messages: FIRST });
  t.is(answer.status, 201, answer.text);
  const body = answer.body as Stored;
  t.like(body, { sessionId: "s-1", turnsAdded: 3, turnsSkipped: 0, turnsTotal: 3 });
  t.like(body.memory, { status: "indexed", chunksWritten: 3 });
  t.is(body.previousSessionMemoryId, null);

  const chunks = await chunksOf(tenant, body.memory.memoryId);
  t.deepEqual(
    chunks.map((c) => c.content),
    FIRST.map((m) => `${m.speaker}: ${m.content}`),
  );
  t.deepEqual(
    chunks.map((c) => c.valid_from.toISOString()),
    FIRST.map((m) => m.at),
  );
  // Neither the title, the session id nor a time is a term of the turn's text.
  for (const c of chunks) {
    t.false(
      c.lexemes.some((l) => /2026|kickoff-planning|s-1|09/.test(l)),
      c.lexemes.join(" "),
    );
  }
  t.true(chunks[1]?.lexemes.includes("ben") ?? false, "the speaker is indexed with the turn");
  const [version] = await versionsOf(tenant, body.memory.memoryId);
  t.like(version, { memory_type: "episodic", kind: "document", valid_to: null });
  t.is(version?.valid_from.toISOString(), FIRST[0]?.at);
});

test("REST: a re-send stores nothing; an append adds only the new turns as a new version of the session", async (t) => {
  const tenant = await tenantWithWrites();
  const first = (await post(tenant, { sessionId: "daily", messages: FIRST })).body as Stored;

  const again = await post(tenant, { sessionId: "daily", messages: FIRST });
  t.is(again.status, 200);
  t.like(again.body as Stored, { turnsAdded: 0, turnsSkipped: 3, turnsTotal: 3 });
  t.is((again.body as Stored).memory.memoryId, first.memory.memoryId);
  t.true((again.body as Stored).memory.unchanged);
  t.is((await versionsOf(tenant, first.memory.memoryId)).length, 1, "no new version for a re-send");

  // The whole session again plus two new turns (one without a time): only the two are added.
  const later = [
    ...FIRST,
    { speaker: "Ben", content: "Room booked, invitations are out.", at: at(30).toISOString() },
    { speaker: "Anna", content: "Thanks!" },
  ];
  const before = Date.now();
  const appended = await post(tenant, { sessionId: "daily", messages: later });
  t.is(appended.status, 201);
  const body = appended.body as Stored;
  t.like(body, { turnsAdded: 2, turnsSkipped: 3, turnsTotal: 5 });
  t.like(body.memory, { status: "indexed", chunksWritten: 5 });
  t.not(body.memory.memoryId, first.memory.memoryId);
  const versions = await versionsOf(tenant, body.memory.memoryId);
  t.deepEqual(
    versions.map((v) => v.id),
    [first.memory.memoryId, body.memory.memoryId],
    "the append continues the session's lineage",
  );
  t.not(versions[0]?.valid_to, null, "the earlier version is closed");
  t.is(versions[1]?.valid_to, null);
  const chunks = await chunksOf(tenant, body.memory.memoryId);
  t.deepEqual(
    chunks.map((c) => c.content),
    later.map((m) => `${m.speaker}: ${m.content}`),
    "each turn once, in order",
  );
  t.true(
    (chunks[4]?.valid_from.getTime() ?? 0) >= before - 1000,
    "a turn without a time is dated on receipt",
  );

  // Re-sending the appended session is again a no-op; a repeat said once more is a new turn.
  const third = (await post(tenant, { sessionId: "daily", messages: later })).body as Stored;
  t.like(third, { turnsAdded: 0, turnsTotal: 5 });
  const repeat = (
    await post(tenant, {
      sessionId: "daily",
      messages: [
        { speaker: "Anna", content: "Thanks!" },
        { speaker: "Anna", content: "Thanks!" },
      ],
    })
  ).body as Stored;
  t.like(repeat, { turnsAdded: 1, turnsSkipped: 1, turnsTotal: 6 });

  // Exactly one current memory for the session, one memory.created event per version.
  const [counts] = await service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ current: number; events: number }[]>`
      select (select count(*)::int from memories where valid_to is null) as current,
             (select count(*)::int from outbox where event = 'memory.created') as events`,
  );
  t.deepEqual(counts, { current: 1, events: 3 });
});

test("gRPC: recall returns the turn as snippet with its speaker and its message time", async (t) => {
  const tenant = await tenantWithWrites();
  const clients = clientsFor(service, tenant);
  const stored = await clients.ingest.storeConversation({
    title: "Office chat",
    messages: [
      {
        speaker: "Carla",
        content: "The espresso machine on floor three is broken again.",
        at: timestampFromDate(at(0)),
      },
      {
        speaker: "Dev",
        content: "I ordered a replacement pump from the vendor.",
        at: timestampFromDate(at(5)),
      },
      { speaker: "Carla", content: "Let's have lunch at the Greek place.", at: timestampFromDate(at(9)) },
    ],
  });
  t.truthy(stored.sessionId, "a session id is generated");
  t.is(stored.turnsAdded, 3);
  const { hits } = await clients.recall.recall({ query: "replacement pump vendor", k: 3 });
  const hit = hits[0];
  t.is(hit?.memoryId, stored.memory?.memoryId);
  t.regex(hit?.snippet ?? "", /^Dev: I ordered a replacement pump/);
  t.is(hit?.validFrom && timestampDate(hit.validFrom).toISOString(), at(5).toISOString());
  t.is(hit?.title, `Office chat · ${stored.sessionId}`);
});

test("gRPC: sessions of one conversation are linked in order of their first message (PRECEDES), across appends", async (t) => {
  const tenant = await tenantWithWrites();
  const clients = clientsFor(service, tenant);
  const send = (sessionId: string, minutes: number, content: string) =>
    clients.ingest.storeConversation({
      title: "Project Falcon",
      sessionId,
      messages: [{ speaker: "Eva", content, at: timestampFromDate(at(minutes)) }],
    });
  const monday = await send("mon", 0, "We start Project Falcon with the data model.");
  const wednesday = await send("wed", 2 * 24 * 60, "The data model is reviewed.");
  t.is(wednesday.previousSessionMemoryId, monday.memory?.memoryId);
  // Tuesday arrives last: it goes between the two, and Monday no longer precedes Wednesday directly.
  const tuesday = await send("tue", 24 * 60, "Half of the data model is done.");
  t.is(tuesday.previousSessionMemoryId, monday.memory?.memoryId);
  t.is(tuesday.nextSessionMemoryId, wednesday.memory?.memoryId);
  const outgoing = async (id: string | undefined) =>
    (await clients.graph.listRelations({ memoryId: id ?? "" })).outgoing
      .filter((r) => r.relType === "PRECEDES")
      .map((r) => r.to);
  t.deepEqual(await outgoing(monday.memory?.memoryId), [tuesday.memory?.memoryId]);
  t.deepEqual(await outgoing(tuesday.memory?.memoryId), [wednesday.memory?.memoryId]);

  // An append makes a new version of Tuesday; the links move with it.
  const appended = await clients.ingest.storeConversation({
    sessionId: "tue",
    messages: [
      { speaker: "Eva", content: "The other half follows tomorrow.", at: timestampFromDate(at(24 * 60 + 5)) },
    ],
  });
  t.not(appended.memory?.memoryId, tuesday.memory?.memoryId);
  t.deepEqual(await outgoing(appended.memory?.memoryId), [wednesday.memory?.memoryId]);
  t.deepEqual(await outgoing(monday.memory?.memoryId), [appended.memory?.memoryId]);
  // A session without a title stands alone.
  const alone = await clients.ingest.storeConversation({
    messages: [{ speaker: "Eva", content: "Unrelated." }],
  });
  t.is(alone.previousSessionMemoryId, undefined);
});

test("bad input: documented errors, nothing stored", async (t) => {
  const tenant = await tenantWithWrites();
  // Each error names the field, in the spec's generic error body.
  const cases: [string, unknown, number, RegExp][] = [
    ["no messages", { messages: [] }, 422, /^messages: must hold at least one/],
    ["messages missing", { title: "x" }, 422, /^messages: is required/],
    ["speaker missing", { messages: [{ content: "hi" }] }, 422, /^messages\.0\.speaker: is required/],
    [
      "empty speaker",
      { messages: [{ speaker: "", content: "hi" }] },
      422,
      /^messages\.0\.speaker: must not be empty/,
    ],
    [
      "bad time",
      { messages: [{ speaker: "A", content: "hi", at: "yesterday" }] },
      422,
      /^messages\.0\.at: must be an RFC 3339/,
    ],
    [
      "unknown field",
      { messages: [{ speaker: "A", content: "hi" }], session: "x" },
      422,
      /unknown field 'session'/,
    ],
    [
      "too many",
      { messages: Array.from({ length: 1001 }, (_, i) => ({ speaker: "A", content: `m${i}` })) },
      422,
      /^messages: must hold at most 1000/,
    ],
    [
      "blank content",
      { messages: [{ speaker: "A", content: "   " }] },
      422,
      /^messages\[0\]\.content is required/,
    ],
    [
      "message over 100 KB",
      { messages: [{ speaker: "A", content: "a".repeat(100 * 1024 + 1) }] },
      413,
      /messages\[0\]\.content/,
    ],
  ];
  for (const [what, body, status, error] of cases) {
    const answer = await post(tenant, body);
    t.is(answer.status, status, `${what}: ${answer.text}`);
    t.deepEqual(Object.keys(answer.body as object), ["error"], what);
    t.regex(errorOf(answer), error, what);
  }
  const clients = clientsFor(service, tenant);
  await clients.ingest.storeConversation({
    title: "One",
    sessionId: "x",
    messages: [{ speaker: "A", content: "hi" }],
  });
  const other = await expectFailure(
    t,
    clients.ingest.storeConversation({
      title: "Two",
      sessionId: "x",
      messages: [{ speaker: "A", content: "ho" }],
    }),
    Code.InvalidArgument,
  );
  t.is(other.field, "title");
  const [row] = await service.storage.db.withTenant(
    tenant.tenantId,
    (tx) => tx<{ n: number }[]>`select count(*)::int as n from memories`,
  );
  t.is(row?.n, 1, "only the one valid session was stored");
});

test("quota: a new session counts as one memory, an append to it is allowed at the limit", async (t) => {
  const limited = await service.createTenant({
    plan: "free",
    limitsOverride: { ...UNTHROTTLED, memoryLimit: 1 },
  });
  const first = await post(limited, { sessionId: "q", messages: [{ speaker: "A", content: "first" }] });
  t.is(first.status, 201);
  const append = await post(limited, { sessionId: "q", messages: [{ speaker: "B", content: "second" }] });
  t.is(append.status, 201, append.text);
  const other = await post(limited, { sessionId: "r", messages: [{ speaker: "A", content: "other" }] });
  t.is(other.status, 402);
  t.is(errorOf(other), "plan_upgrade_required");
});

test("MCP: service_store_conversation stores a session; recall_at_time gives the turn's time", async (t) => {
  const tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  const connected = await connectSdkClient(service.httpUrl, tenant.token, "json");
  try {
    const messages = [
      { speaker: "Gus", content: "My sister Hanna moved to Lisbon in spring.", at: at(0).toISOString() },
      { speaker: "Ida", content: "Does she like the surfing there?", at: at(1).toISOString() },
    ];
    const stored = await callTool<z.output<typeof storedConversationSchema>>(
      connected.client,
      "service_store_conversation",
      { title: "Catch-up", session_id: "c-1", messages },
    );
    t.like(stored, { session_id: "c-1", turns_added: 2, turns_total: 2 });
    const again = await callTool<z.output<typeof storedConversationSchema>>(
      connected.client,
      "service_store_conversation",
      { session_id: "c-1", messages },
    );
    t.like(again, { turns_added: 0, turns_skipped: 2 });
    t.true(again.memory.unchanged);
    const { hits } = await callTool<z.output<typeof recallAtTimeOutput>>(
      connected.client,
      "service_recall_at_time",
      {
        query: "sister moved to Lisbon",
      },
    );
    t.is(hits[0]?.memory_id, stored.memory.memory_id);
    t.is(hits[0]?.valid_from, at(0).toISOString());
    t.regex(hits[0]?.content ?? "", /^Gus: My sister Hanna/);
  } finally {
    await connected.close();
  }
});
