import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import { vectorTableName } from "../../core/vectors/vector-table-name.js";
import type { StoreMemoriesResponse } from "../../gen/memory/v1/ingest_service_pb.js";
import { IndexStatus, MemoryType } from "../../gen/memory/v1/memory_pb.js";
import type { TestService } from "../helpers/test-service.js";
import { errorOf, rest } from "../rest/rest-client.js";
import {
  expectFailure,
  ingestClient,
  memoriesTitled,
  readChunks,
  startIngestService,
} from "./ingest-test-kit.js";

// IngestService.StoreMemories over real gRPC and POST /api/v1/memory/entries/batch over REST, with the
// real built-in embedder: each entry is stored as StoreMemory stores it, with its own outcome, in order.

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

type Result = StoreMemoriesResponse["results"][number];
const stored = (result: Result | undefined) =>
  result?.outcome.case === "memory" ? result.outcome.value : undefined;
const refused = (result: Result | undefined) =>
  result?.outcome.case === "error" ? result.outcome.value : undefined;

test("a batch stores every entry as StoreMemory would: indexed, chunked, vectors, events, findable by recall", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const entries = [
    { title: "Hund", content: "Unser Hund heißt Bello und frisst gern Karotten." },
    {
      title: "Auto",
      content: "Das Auto der Familie ist ein grüner Kombi aus dem Jahr 2012.",
      tags: ["familie"],
    },
    {
      title: "Urlaub",
      content: "Im Sommer fahren wir an die Ostsee nach Warnemünde.",
      memoryType: MemoryType.EPISODIC,
    },
  ];
  const { results } = await client.storeMemories({ memories: entries });
  t.is(results.length, 3);
  const memories = results.map(stored);
  t.deepEqual(
    memories.map((m) => [m?.title, m?.status, m?.chunksWritten, m?.unchanged]),
    entries.map((e) => [e.title, IndexStatus.INDEXED, 1, undefined]),
  );
  t.is(new Set(memories.map((m) => m?.memoryId)).size, 3);
  // The quota of the last entry counts the whole batch.
  t.true(memories.every((m) => Number(m?.quota?.memoriesUsed ?? 0n) >= 1));
  t.is(Math.max(...memories.map((m) => Number(m?.quota?.memoriesUsed ?? 0n))), 3);

  for (const [i, memory] of memories.entries()) {
    const chunks = await readChunks(service, memory?.memoryId ?? "");
    t.is(chunks[0]?.content, entries[i]?.content);
    t.true(chunks[0]?.vector_stored);
  }
  t.is(await service.storage.vectors.count(tenant.tenantId, service.models.embedder.id), 3);
  const types = await service.storage.db.sql<{ title: string; memory_type: string; tags: string[] }[]>`
    select title, memory_type, tags from memories where tenant_id = ${tenant.tenantId} order by title`;
  t.deepEqual(
    types.map((r) => [r.title, r.memory_type, [...r.tags]]),
    [
      ["Auto", "semantic", ["familie"]],
      ["Hund", "semantic", []],
      ["Urlaub", "episodic", []],
    ],
  );
  const events = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from outbox where tenant_id = ${tenant.tenantId} and event = 'memory.created'`;
  t.is(events[0]?.n, 3);

  const recall = await rest(service.httpUrl, "/api/memory/recall", {
    token: tenant.token,
    body: { query: "Wie heißt unser Hund?", k: 3 },
  });
  t.is(recall.status, 200, recall.text);
  t.is((recall.body as { hits: { memoryId: string }[] }).hits[0]?.memoryId, memories[0]?.memoryId);
});

test("entries written together commit indexed with their vectors, in one transaction, never updated after", async (t) => {
  // Issue 23 / ADR 0330: a shared transaction stores its members' vectors before it commits, so the
  // rows are written indexed — the separate indexed mark (an update of every row) is gone.
  const tenant = await service.createTenant();
  const entries = Array.from({ length: 6 }, (_, i) => ({
    title: `Eintrag ${i}`,
    content: `Notiz Nummer ${i}: der Zählerstand im Keller war ${1000 + i * 37} Kilowattstunden.`,
  }));
  const { results } = await ingestClient(service, tenant.token).storeMemories({ memories: entries });
  t.true(results.every((r) => stored(r)?.status === IndexStatus.INDEXED));
  const rows = await service.storage.db.sql<
    { status: string; written_by: string; untouched: boolean; chunks_stored: boolean }[]
  >`
    select m.status, m.xmin::text as written_by, m.updated_at = m.created_at as untouched,
           bool_and(c.vector_stored and c.xmin = m.xmin) as chunks_stored
    from memories m join chunks c on c.memory_id = m.id
    where m.tenant_id = ${tenant.tenantId}
    group by m.id`;
  t.is(rows.length, 6);
  t.true(rows.every((r) => r.status === "indexed" && r.untouched && r.chunks_stored));
  t.true(new Set(rows.map((r) => r.written_by)).size < 6, "at least two entries shared a transaction");
  t.is(await service.storage.vectors.count(tenant.tenantId, service.models.embedder.id), 6);
});

test.serial(
  "a LanceDB failure in a shared transaction rolls it back; each entry then fails on its own",
  async (t) => {
    const tenant = await service.createTenant();
    // A plain file where the tenant's table directory would go: LanceDB cannot create the table.
    const table = vectorTableName(tenant.tenantId, service.models.embedder.id);
    await writeFile(join(service.storage.vectors.uri, `${table}.lance`), "not a table");
    const { results } = await ingestClient(service, tenant.token).storeMemories({
      memories: [
        { title: "Platte", content: "Die Festplatte ist voll." },
        { title: "Speicher", content: "Der Arbeitsspeicher reicht nicht." },
      ],
    });
    t.is(results.length, 2);
    for (const result of results) {
      const error = refused(result);
      t.is(error?.code, Code.Internal);
      t.is(error?.info?.reason, "ingest_failed");
    }
    // Each is recorded failed by its own write (not left half-written by the rolled-back batch).
    const rows = await service.storage.db.sql<{ status: string; chunks: number; stored: number }[]>`
    select m.status, count(c.id)::int as chunks, count(c.id) filter (where c.vector_stored)::int as stored
    from memories m left join chunks c on c.memory_id = m.id
    where m.tenant_id = ${tenant.tenantId} group by m.id`;
    t.deepEqual(
      rows.map((r) => [r.status, r.stored]),
      [
        ["failed", 0],
        ["failed", 0],
      ],
    );
  },
);

test("each entry keeps its own outcome: content required, too large, byte-identical twin, the rest stored", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const { results } = await client.storeMemories({
    memories: [
      { title: "Erste", content: "Die Besprechung ist am Dienstag um zehn Uhr." },
      { title: "Leer", content: "   " },
      { title: "Riesig", content: "x".repeat(100 * 1024 + 1) },
      { title: "Erste", content: "Die Besprechung ist am Dienstag um zehn Uhr." },
      { title: "Erste", content: "Die Besprechung wurde auf Mittwoch verschoben." },
    ],
  });
  t.is(results.length, 5);
  const first = stored(results[0]);
  t.is(first?.status, IndexStatus.INDEXED);

  const blank = refused(results[1]);
  t.is(blank?.code, Code.InvalidArgument);
  t.is(blank?.info?.reason, "content_required");
  t.is(blank?.info?.field, "content");
  const large = refused(results[2]);
  t.is(large?.code, Code.InvalidArgument);
  t.is(large?.info?.reason, "too_large");
  t.regex(large?.message ?? "", /content is larger than/);

  // Spec rule 1 inside one batch: the identical entry after the first returns the first, unchanged.
  const twin = stored(results[3]);
  t.is(twin?.memoryId, first?.memoryId);
  t.true(twin?.unchanged);
  // Append-only: the same title with other content is a second memory.
  const second = stored(results[4]);
  t.truthy(second?.memoryId);
  t.not(second?.memoryId, first?.memoryId);
  t.is(second?.unchanged, undefined);

  const rows = await memoriesTitled(service, tenant.tenantId, "Erste");
  t.is(rows.length, 2);
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 2, "refused entries left nothing behind");
});

test("the memory limit is checked entry by entry: those over it get the plan gate, nothing above the limit is stored", async (t) => {
  const tenant = await service.createTenant({
    plan: "free",
    limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit: 2 },
  });
  const client = ingestClient(service, tenant.token);
  const { results } = await client.storeMemories({
    memories: ["eins", "zwei", "drei", "vier"].map((w) => ({
      title: w,
      content: `Die Zahl ${w} steht hier.`,
    })),
  });
  t.is(results.filter((r) => r.outcome.case === "memory").length, 2);
  const gates = results.map(refused).filter((e) => e !== undefined);
  t.is(gates.length, 2);
  for (const gate of gates) {
    t.is(gate.code, Code.FailedPrecondition);
    t.is(gate.info?.reason, "plan_upgrade_required");
    t.is(gate.planGate?.limit, 2n);
    t.is(gate.planGate?.used, 2n);
    t.truthy(gate.planGate?.upgradeUrl);
  }
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 2);
});

test("a batch that breaks a field rule is refused as a whole, naming the entry, before anything is stored", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const badTag = await expectFailure(
    t,
    client.storeMemories({
      memories: [
        { title: "gut", content: "Ein gültiger Eintrag." },
        { title: "schlecht", content: "Ein Eintrag mit leerem Tag.", tags: [""] },
      ],
    }),
    Code.InvalidArgument,
  );
  t.is(badTag.field, "memories[1].tags[0]");
  const none = await expectFailure(t, client.storeMemories({ memories: [] }), Code.InvalidArgument);
  t.regex(none.message, /^memories: /);
  const tooMany = Array.from({ length: 101 }, (_, i) => ({ title: `n${i}`, content: `Eintrag ${i}` }));
  const many = await expectFailure(t, client.storeMemories({ memories: tooMany }), Code.InvalidArgument);
  t.regex(many.message, /^memories: .*100/);
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 0);
});

test("a batch counts one request per entry against the rate limit", async (t) => {
  const tenant = await service.createTenant({ limitsOverride: { requestsPerMinutePerToken: 5 } });
  const client = ingestClient(service, tenant.token);
  const batch = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({ title: `r${from + i}`, content: `Eintrag Nummer ${from + i}` }));
  // Never allowed: more entries than the minute allows is a mistake of the caller, not a wait.
  const over = await expectFailure(t, client.storeMemories({ memories: batch(6, 0) }), Code.InvalidArgument);
  t.is(over.field, "memories");
  t.regex(over.message, /limit of 5 per minute; send at most 5 entries per call/);
  const first = await client.storeMemories({ memories: batch(3, 0) });
  t.is(first.results.filter((r) => r.outcome.case === "memory").length, 3);
  const second = await expectFailure(
    t,
    client.storeMemories({ memories: batch(3, 3) }),
    Code.ResourceExhausted,
  );
  t.is(second.reason, "rate_limited");
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 3);
});

test("a batch repeated with its idempotency key replays the first answer and writes nothing twice", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const memories = [
    { title: "a", content: "Erster Eintrag der Wiederholung." },
    { title: "b", content: "Zweiter Eintrag der Wiederholung." },
  ];
  const headers = { "idempotency-key": "batch-retry-1" };
  const first = await client.storeMemories({ memories }, { headers });
  const again = await client.storeMemories({ memories }, { headers });
  t.deepEqual(
    again.results.map(stored).map((m) => m?.memoryId),
    first.results.map(stored).map((m) => m?.memoryId),
  );
  t.is(again.results.map(stored)[0]?.unchanged, undefined, "a replay, not a second write found unchanged");
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 2);
  const other = await t.throwsAsync(client.storeMemories({ memories: memories.slice(1) }, { headers }));
  t.true(other instanceof ConnectError && other.code === Code.FailedPrecondition);
});

test("REST POST /api/v1/memory/entries/batch: 200 with each entry's own status and body, in order", async (t) => {
  const tenant = await service.createTenant();
  const url = service.httpUrl;
  const res = await rest(url, "/api/v1/memory/entries/batch", {
    token: tenant.token,
    body: {
      memories: [
        { memoryType: "semantic", title: "Kaffee", content: "Ich trinke Kaffee schwarz." },
        { memory_type: "procedural", title: "Deploy", content: "Erst testen, dann ausrollen." },
        { memoryType: "semantic", title: "Kaffee", content: "Ich trinke Kaffee schwarz." },
        { memoryType: "semantic", title: "Groß", content: "y".repeat(100 * 1024 + 1) },
      ],
    },
  });
  t.is(res.status, 200, res.text);
  const { results } = res.body as {
    results: {
      status: number;
      memory?: { memoryId: string; unchanged?: boolean };
      error?: { error: string };
    }[];
  };
  t.deepEqual(
    results.map((r) => r.status),
    [201, 201, 200, 413],
  );
  t.is(results[2]?.memory?.memoryId, results[0]?.memory?.memoryId);
  t.true(results[2]?.memory?.unchanged);
  t.regex(results[3]?.error?.error ?? "", /content is larger than/);
  const types = await service.storage.db.sql<{ memory_type: string }[]>`
    select memory_type from memories where tenant_id = ${tenant.tenantId} and title = 'Deploy'`;
  t.is(types[0]?.memory_type, "procedural");

  // The schema is checked for the whole body before anything is stored.
  const invalid = await rest(url, "/api/v1/memory/entries/batch", {
    token: tenant.token,
    body: {
      memories: [
        { memoryType: "semantic", title: "x", content: "y" },
        { title: "ohne Typ", content: "z" },
      ],
    },
  });
  t.is(invalid.status, 422, invalid.text);
  t.regex(errorOf(invalid), /memories\.1\.memory_type: is required/);
  const empty = await rest(url, "/api/v1/memory/entries/batch", {
    token: tenant.token,
    body: { memories: [] },
  });
  t.is(empty.status, 422, empty.text);
  const all = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  t.is(all[0]?.n, 2, "the two stored entries; the twin and the refused ones wrote nothing");
  const anonymous = await rest(url, "/api/v1/memory/entries/batch", { body: { memories: [] } });
  t.is(anonymous.status, 401);
});
