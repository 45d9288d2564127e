import { Code } from "@connectrpc/connect";
import test from "ava";
import { MAINTAIN_VECTORS_TASK } from "../../core/memories/memory-jobs.js";
import {
  MAINTAIN_EVERY_ROWS,
  MAINTAIN_EVERY_VERSIONS,
  requestVectorMaintenance,
  SETTLE_AFTER_MS,
} from "../../core/memories/schedule-maintenance.js";
import { IndexStatus, MemoryType } from "../../gen/memory/v1/memory_pb.js";
import { type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import {
  expectFailure,
  ingestClient,
  longGermanText,
  memoriesTitled,
  readChunks,
  readMemory,
  startIngestService,
} from "./ingest-test-kit.js";

// service_store_memory / REST memory entries through IngestService.StoreMemory over real gRPC, with
// the real built-in embedder (spec: behaviour rules 1 and 2, "States and transitions", sizes).

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
});

test("store_memory indexes inline: chunks with a german tsvector, vectors in LanceDB, memory.created", async (t) => {
  // A tenant of its own: the other tests of this file write concurrently.
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const content = "Meine Lieblingsfarbe ist Blau. Ich trinke morgens gern Kaffee mit Hafermilch.";
  const { memory } = await client.storeMemory({ title: "Vorlieben", content });
  t.truthy(memory);
  if (!memory) return;
  t.is(memory.status, IndexStatus.INDEXED);
  t.is(memory.title, "Vorlieben");
  t.is(memory.chunksWritten, 1);
  t.is(memory.embeddingProvider, service.models.embedder.id);
  t.regex(memory.embeddingProvider, /^builtin-/);
  t.is(memory.unchanged, undefined);

  const row = await readMemory(service, memory.memoryId);
  t.is(row?.status, "indexed");
  t.is(row?.kind, "entry");
  t.is(row?.embedding_space, service.models.embedder.id);
  const chunks = await readChunks(service, memory.memoryId);
  t.is(chunks.length, 1);
  t.is(chunks[0]?.content, content);
  t.true(chunks[0]?.vector_stored);
  // German Snowball stemming: "Lieblingsfarbe" → "lieblingsfarb", stop words ("ist", "mit") dropped.
  t.regex(chunks[0]?.tsv ?? "", /'lieblingsfarb'/);
  t.notRegex(chunks[0]?.tsv ?? "", /'ist'/);
  t.true((chunks[0]?.tsv.match(/'[^']+'/g) ?? []).length >= 8);

  t.is(await service.storage.vectors.count(tenant.tenantId, memory.embeddingProvider), 1);
  const [query] = await service.models.embedder.embed(["Welche Farbe mag ich am liebsten?"], "query");
  const hits = await service.storage.vectors.search(tenant.tenantId, memory.embeddingProvider, query!, 5);
  t.is(hits[0]?.memoryId, memory.memoryId);
  t.is(hits[0]?.chunkId, chunks[0]?.id);

  const events = await service.storage.db.sql<{ event: string; payload: Record<string, unknown> }[]>`
    select event, payload from outbox where tenant_id = ${tenant.tenantId} and payload->>'documentId' = ${memory.memoryId}`;
  t.deepEqual(
    [...events],
    [
      {
        event: "memory.created",
        payload: { documentId: memory.memoryId, title: "Vorlieben", chunksWritten: 1 },
      },
    ],
  );
});

test("success responses carry the quota figures", async (t) => {
  const limited = await service.createTenant({
    plan: "free",
    limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit: 5 },
  });
  const client = ingestClient(service, limited.token);
  for (let i = 1; i <= 4; i++) {
    const { memory } = await client.storeMemory({ content: `Notiz Nummer ${i} über das Wetter.` });
    t.is(memory?.quota?.memoryLimit, 5n);
    t.is(memory?.quota?.memoriesUsed, BigInt(i));
    // Spec "Soft warning": from 80 percent of the limit.
    t.is(memory?.quota?.warnAt80, i >= 4);
  }
  const unlimited = await ingestClient(service, tenant.token).storeMemory({ content: "Ohne Limit." });
  t.is(unlimited.memory?.quota?.memoryLimit, undefined);
  t.false(unlimited.memory?.quota?.warnAt80);
});

test("byte-identical content with the same title returns the existing memory with unchanged", async (t) => {
  const client = ingestClient(service, tenant.token);
  const request = { title: "Idempotent", content: "Der Zug fährt um 7:15 Uhr ab Gleis 3." };
  const first = await client.storeMemory(request);
  const second = await client.storeMemory(request);
  t.is(second.memory?.memoryId, first.memory?.memoryId);
  t.true(second.memory?.unchanged);
  t.is(second.memory?.status, IndexStatus.INDEXED);
  t.is(second.memory?.chunksWritten, 1);
  t.is((await memoriesTitled(service, tenant.tenantId, "Idempotent")).length, 1);
});

test("concurrent identical calls write one memory, once", async (t) => {
  const client = ingestClient(service, tenant.token);
  const request = { title: "Gleichzeitig", content: "Das Meeting ist am Dienstag um 10 Uhr im Raum Elbe." };
  const results = await Promise.all(Array.from({ length: 8 }, () => client.storeMemory(request)));
  const ids = new Set(results.map((r) => r.memory?.memoryId));
  t.is(ids.size, 1);
  t.is(results.filter((r) => r.memory?.unchanged !== true).length, 1);
  const rows = await memoriesTitled(service, tenant.tenantId, "Gleichzeitig");
  t.is(rows.length, 1);
  const [id] = ids;
  const events = await service.storage.db.sql`
    select 1 from outbox where tenant_id = ${tenant.tenantId} and payload->>'documentId' = ${id ?? ""}`;
  t.is(events.length, 1);
  t.is(await readChunks(service, id ?? "").then((c) => c.length), 1);
});

test("store_memory is append-only: the same title with other content is a second memory", async (t) => {
  const client = ingestClient(service, tenant.token);
  const a = await client.storeMemory({ title: "Telefon", content: "Die Nummer ist 0401234." });
  const b = await client.storeMemory({ title: "Telefon", content: "Die Nummer ist 0409999." });
  t.not(a.memory?.memoryId, b.memory?.memoryId);
  t.is(b.memory?.unchanged, undefined);
  const rows = await memoriesTitled(service, tenant.tenantId, "Telefon");
  t.deepEqual(
    rows.map((r) => [r.status, r.valid_to]),
    [
      ["indexed", null],
      ["indexed", null],
    ],
  );
});

test("memory_type, tags, source and metadata are stored", async (t) => {
  const client = ingestClient(service, tenant.token);
  const { memory } = await client.storeMemory({
    title: "Deployment",
    content: "Erst die Migration, dann der Neustart der Worker.",
    memoryType: MemoryType.PROCEDURAL,
    tags: ["ops", "release"],
    source: "https://wiki.example/deploy",
    metadata: { team: "platform", priority: 2, reviewed: true },
  });
  const row = await readMemory(service, memory?.memoryId ?? "");
  t.is(row?.memory_type, "procedural");
  t.deepEqual(row?.tags, ["ops", "release"]);
  t.is(row?.source, "https://wiki.example/deploy");
  t.deepEqual(row?.metadata, { team: "platform", priority: 2, reviewed: true });
  const plain = await client.storeMemory({ content: "Ohne Typ gespeichert." });
  t.is((await readMemory(service, plain.memory?.memoryId ?? ""))?.memory_type, "semantic");
});

test("a memory without a title is titled with its first line", async (t) => {
  const client = ingestClient(service, tenant.token);
  const { memory } = await client.storeMemory({ content: "# Einkaufsliste\n\nMilch, Brot, Äpfel." });
  t.is(memory?.title, "Einkaufsliste");
  t.is((await readMemory(service, memory?.memoryId ?? ""))?.title, "Einkaufsliste");
});

test("empty or blank content is refused with content_required and writes nothing", async (t) => {
  const client = ingestClient(service, tenant.token);
  for (const content of ["", "  \n\t "]) {
    const failure = await expectFailure(
      t,
      client.storeMemory({ title: "Leer", content }),
      Code.InvalidArgument,
    );
    t.is(failure.reason, "content_required");
    t.is(failure.field, "content");
  }
  t.is((await memoriesTitled(service, tenant.tenantId, "Leer")).length, 0);
});

test("a memory over 100 KB is refused with too_large and a hint to split", async (t) => {
  const client = ingestClient(service, tenant.token);
  const content = "ä".repeat(51_201); // 102,402 bytes of UTF-8, 51,201 characters
  const failure = await expectFailure(
    t,
    client.storeMemory({ title: "Zu groß", content }),
    Code.InvalidArgument,
  );
  t.is(failure.reason, "too_large");
  t.regex(failure.message, /split/);
  t.is((await memoriesTitled(service, tenant.tenantId, "Zu groß")).length, 0);
  // Exactly at the limit is fine.
  const ok = await client.storeMemory({ title: "Gerade noch", content: "a".repeat(100 * 1024) });
  t.truthy(ok.memory?.memoryId);
});

test("a token without write scope cannot store", async (t) => {
  const reader = await tenant.issueToken(["read"]);
  const failure = await expectFailure(
    t,
    ingestClient(service, reader.token).storeMemory({ content: "Nur lesen." }),
    Code.PermissionDenied,
  );
  t.regex(failure.message, /write/);
});

test("content above 10,000 characters is stored queued and indexed by the worker", async (t) => {
  const client = ingestClient(service, tenant.token);
  const content = longGermanText(60);
  t.true(content.length > 10_000);
  const { memory } = await client.storeMemory({ title: "Lang", content });
  t.is(memory?.status, IndexStatus.QUEUED);
  t.is(memory?.chunksWritten, 0);
  const id = memory?.memoryId ?? "";
  const indexed = await waitFor(
    async () => {
      const row = await readMemory(service, id);
      return row?.status === "indexed" ? row : undefined;
    },
    { what: "the worker to index the long memory", timeoutMs: 60_000 },
  );
  t.true(indexed.chunks_written > 1);
  const chunks = await readChunks(service, id);
  t.is(chunks.length, indexed.chunks_written);
  t.true(chunks.every((c) => c.vector_stored));
  // Identical content while indexed: unchanged, same id.
  const again = await client.storeMemory({ title: "Lang", content });
  t.is(again.memory?.memoryId, id);
  t.true(again.memory?.unchanged);
});

test("a busy table is compacted by the worker without waiting for the periodic sweep", async (t) => {
  // Every append leaves a LanceDB fragment; many fragments make searches slow (docs/ingest.md).
  const busy = await service.createTenant();
  const client = ingestClient(service, busy.token);
  for (let i = 0; i < 40; i++) await client.storeMemory({ content: `Eintrag ${i} im Tagebuch.` });
  const table = await service.storage.vectors.openTable(busy.tenantId, service.models.embedder.id);
  const fragments = await waitFor(
    async () => {
      const n = (await table?.stats())?.fragmentStats.numFragments ?? 0;
      return n <= 16 ? n : undefined;
    },
    { what: "the maintain-vectors job to compact the table", timeoutMs: 60_000 },
  );
  t.true(fragments <= 16);
  t.is(await service.storage.vectors.count(busy.tenantId, service.models.embedder.id), 40);
});

test("a burst of writes leaves one settling maintenance run, moved past each later request", async (t) => {
  // Issue 23: the versions and fragments of a burst's last commits waited for the 10-minute sweep.
  const { tenantId } = await service.createTenant();
  const space = service.models.embedder.id;
  const sql = service.storage.db.sql;
  // The jobs view has no payload column: the table behind it has.
  const settleJobs = () =>
    sql<{ run_at: Date; payload: Record<string, unknown> }[]>`
      select j.run_at, j.payload from graphile_worker._private_jobs j
      join graphile_worker._private_tasks k on k.id = j.task_id
      where k.identifier = ${MAINTAIN_VECTORS_TASK} and j.key = ${`${MAINTAIN_VECTORS_TASK}:${tenantId}:${space}:settle`}`;
  await requestVectorMaintenance(sql, tenantId, space, MAINTAIN_EVERY_VERSIONS + 1);
  t.is((await settleJobs()).length, 0, "only every 32nd version asks for maintenance");
  const before = Date.now();
  await requestVectorMaintenance(sql, tenantId, space, MAINTAIN_EVERY_VERSIONS);
  const [first, ...more] = await settleJobs();
  t.is(more.length, 0);
  // The settling run may rebuild the ANN index; the immediate one, made while writes go on, may not.
  t.deepEqual(first?.payload, { tenantId, space });
  const firstAt = first?.run_at.getTime() ?? 0;
  t.true(firstAt >= before + SETTLE_AFTER_MS - 1_000 && firstAt <= Date.now() + SETTLE_AFTER_MS + 1_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await requestVectorMaintenance(sql, tenantId, space, 2 * MAINTAIN_EVERY_VERSIONS);
  const after = await settleJobs();
  t.is(after.length, 1, "the pending run is replaced, not doubled");
  t.true((after[0]?.run_at.getTime() ?? 0) > firstAt, "a later request moves the run later");
});

/**
 * The revisions of a table's pending settling job: it waits 30 s, so it is still there to show how
 * often it was enqueued (0) or replaced (each request after that adds one); the immediate job may
 * already have run.
 */
async function settleRevisions(tenantId: string, space: string): Promise<number[]> {
  const rows = await service.storage.db.sql<{ revision: number }[]>`
    select revision from graphile_worker.jobs
    where task_identifier = ${MAINTAIN_VECTORS_TASK} and key = ${`${MAINTAIN_VECTORS_TASK}:${tenantId}:${space}:settle`}`;
  return rows.map((r) => r.revision);
}

test("rows appended in few large commits ask for maintenance too (batches of hundreds per version)", async (t) => {
  // Issue 23: a 10k-memory load in StoreMemories batches made 28 table versions, never a 32nd, and
  // its table kept 26 fragments and no ANN index until the 10-minute sweep.
  const { tenantId } = await service.createTenant();
  const space = service.models.embedder.id;
  const sql = service.storage.db.sql;
  const revisions = () => settleRevisions(tenantId, space);
  const rows = MAINTAIN_EVERY_ROWS * 0.6;
  await requestVectorMaintenance(sql, tenantId, space, 1, rows);
  t.deepEqual(await revisions(), [], "fewer rows than MAINTAIN_EVERY_ROWS in a version that is not due");
  await requestVectorMaintenance(sql, tenantId, space, 2, rows);
  t.deepEqual(await revisions(), [0], "the rows of both writes together are enough");
  await requestVectorMaintenance(sql, tenantId, space, 3, rows);
  t.deepEqual(await revisions(), [0], "the count starts again after a request");
  await requestVectorMaintenance(sql, tenantId, space, 4, rows);
  t.deepEqual(await revisions(), [1]);
});

test("the writes of one group commit ask for a table version's maintenance once", async (t) => {
  // Issue 23: every member of a batch saw the same LanceDB version and each enqueued both jobs.
  const { tenantId } = await service.createTenant();
  const space = service.models.embedder.id;
  const sql = service.storage.db.sql;
  const revisions = () => settleRevisions(tenantId, space);
  const version = 3 * MAINTAIN_EVERY_VERSIONS;
  await Promise.all(
    Array.from({ length: 10 }, () => requestVectorMaintenance(sql, tenantId, space, version)),
  );
  t.deepEqual(await revisions(), [0], "enqueued once, never replaced");
  await requestVectorMaintenance(sql, tenantId, space, version);
  t.deepEqual(await revisions(), [0]);
  await requestVectorMaintenance(sql, tenantId, space, version + MAINTAIN_EVERY_VERSIONS);
  t.deepEqual(await revisions(), [1], "the next version's request replaces it");
});

test("the first writes of a new tenant, all at once, each succeed (one vector table, created once)", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  // Issue 15: 36 first stores at once used to fail 1 in 36 with a LanceDB commit conflict or lose
  // appended rows to a second table creation.
  const results = await Promise.all(
    Array.from({ length: 36 }, (_, i) =>
      client.storeMemory({ title: `Erste Notiz ${i}`, content: `Notiz Nummer ${i} über das Projekt Falke.` }),
    ),
  );
  t.true(results.every((r) => r.memory?.status === IndexStatus.INDEXED));
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from chunks where tenant_id = ${tenant.tenantId} and vector_stored`;
  t.is(row?.n, 36);
  t.is(await service.storage.vectors.count(tenant.tenantId, service.models.embedder.id), 36);
});
