import { randomUUID } from "node:crypto";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import type { MemoryDeps } from "../../core/memories/memory-deps.js";
import { reconcileTenant } from "../../core/memories/reconcile-tenant.js";
import type { TestService } from "../helpers/test-service.js";
import { crashDuringWrite } from "./crash-write.js";
import {
  ingestClient,
  memoriesTitled,
  readChunks,
  readMemory,
  startIngestService,
} from "./ingest-test-kit.js";

// DESIGN "Storage": LanceDB is written after the PostgreSQL commit and reconciled idempotently by the
// worker. Each test makes real drift — a writer SIGKILLed between the two writes, or LanceDB changed
// behind PostgreSQL's back — and runs the reconcile job's code, twice, to show it repairs and then
// finds nothing left to do.

let service: TestService;
let deps: MemoryDeps;

test.before(async () => {
  // No worker: nothing but the reconcile calls below may repair anything.
  service = await startIngestService({ worker: false });
  deps = {
    db: service.storage.db,
    vectors: service.storage.vectors,
    embedder: service.models.embedder,
    logger: createLogger("silent"),
  };
});

test.after.always(async () => {
  await service?.stop();
});

const space = () => service.models.embedder.id;
const reconcile = (tenantId: string) => reconcileTenant(deps, tenantId, { minAgeMs: 0 });

async function vectorRows(tenantId: string, memoryId: string) {
  return (await service.storage.vectors.scan(tenantId, space())).filter((r) => r.memoryId === memoryId);
}

test("a writer killed after the PostgreSQL commit is completed by reconcile", async (t) => {
  const tenant = await service.createTenant();
  const content =
    "# Notfallplan\n\nBei Stromausfall zuerst den Serverraum prüfen, dann die USV-Anzeige ablesen.";
  const id = await crashDuringWrite(service, {
    tenantId: tenant.tenantId,
    hook: "afterPostgresCommit",
    title: "Notfallplan",
    content,
  });
  const crashed = await readMemory(service, id);
  t.is(crashed?.status, "queued");
  const chunks = await readChunks(service, id);
  t.true(chunks.length > 0);
  t.true(chunks.every((c) => !c.vector_stored));
  t.is((await vectorRows(tenant.tenantId, id)).length, 0);

  const report = await reconcile(tenant.tenantId);
  t.deepEqual(report.completed, [id]);
  t.is((await readMemory(service, id))?.status, "indexed");
  t.true((await readChunks(service, id)).every((c) => c.vector_stored));
  t.deepEqual(
    (await vectorRows(tenant.tenantId, id)).map((r) => r.chunkId).sort(),
    chunks.map((c) => c.id).sort(),
  );
  // The vectors are the ones the write path would have written: the memory is found by meaning.
  const [query] = await service.models.embedder.embed(["Was tun bei Stromausfall?"], "query");
  const hits = await service.storage.vectors.search(tenant.tenantId, space(), query!, 1);
  t.is(hits[0]?.memoryId, id);

  const again = await reconcile(tenant.tenantId);
  t.deepEqual(again, {
    completed: [],
    requeued: [],
    orphanVectorsRemoved: 0,
    duplicateVectorsMerged: 0,
    validityFixed: 0,
  });
});

test("a writer killed after the LanceDB write is completed without duplicate vectors", async (t) => {
  const tenant = await service.createTenant();
  const id = await crashDuringWrite(service, {
    tenantId: tenant.tenantId,
    hook: "afterVectorsStored",
    title: "Zugangsdaten",
    content: "Das WLAN heißt Gast-Netz, das Passwort steht auf der Rückseite des Routers.",
  });
  t.is((await readMemory(service, id))?.status, "queued");
  const before = await vectorRows(tenant.tenantId, id);
  t.is(before.length, 1);

  const report = await reconcile(tenant.tenantId);
  t.deepEqual(report.completed, [id]);
  t.is((await readMemory(service, id))?.status, "indexed");
  t.is((await vectorRows(tenant.tenantId, id)).length, 1);
  t.deepEqual((await reconcile(tenant.tenantId)).completed, []);
  t.is((await vectorRows(tenant.tenantId, id)).length, 1);
});

test("a chunk whose vector was written twice keeps one copy, stays stored and findable", async (t) => {
  const tenant = await service.createTenant();
  const { memory } = await ingestClient(service, tenant.token).storeMemory({
    title: "Heizung",
    content: "Die Heizung im Keller wird jeden Herbst entlüftet.",
  });
  const id = memory?.memoryId ?? "";
  const table = await service.storage.vectors.openTable(tenant.tenantId, space());
  const [stored] = (await table!.query().where(`memory_id = '${id}'`).toArray()) as {
    chunk_id: string;
    valid_from: number;
    vector: { toArray(): Float32Array };
  }[];
  // A second copy appended behind the writer's back (what a merge racing an append leaves).
  const copy = {
    chunkId: stored!.chunk_id,
    memoryId: id,
    vector: Float32Array.from(stored!.vector.toArray()),
    validFrom: new Date(Number(stored!.valid_from)),
    validTo: null,
  };
  await service.storage.vectors.upsert(tenant.tenantId, space(), [copy], { readBack: false });
  t.is((await vectorRows(tenant.tenantId, id)).length, 2);

  const report = await reconcile(tenant.tenantId);
  t.is(report.duplicateVectorsMerged, 1);
  t.is(report.orphanVectorsRemoved, 0);
  t.deepEqual(
    (await vectorRows(tenant.tenantId, id)).map((r) => r.chunkId),
    [stored!.chunk_id],
  );
  t.true(
    (await readChunks(service, id)).every((c) => c.vector_stored),
    "never marked missing",
  );
  const hits = await service.storage.vectors.search(tenant.tenantId, space(), copy.vector, 1);
  t.is(hits[0]?.chunkId, stored!.chunk_id);
  t.true((hits[0]?.distance ?? 1) < 1e-4, "the vector written back is the stored one");
  t.is((await reconcile(tenant.tenantId)).duplicateVectorsMerged, 0);
});

test("an upload killed between the writes is completed and then replaces the old document", async (t) => {
  const tenant = await service.createTenant();
  const old = await ingestClient(service, tenant.token).uploadDocument({
    title: "Speiseplan",
    content: "Montag gibt es Linsensuppe.",
  });
  const id = await crashDuringWrite(service, {
    tenantId: tenant.tenantId,
    hook: "afterPostgresCommit",
    kind: "document",
    title: "Speiseplan",
    content: "Montag gibt es Kartoffelsuppe.",
  });
  // Nothing replaced yet: the new version never finished.
  t.is((await readMemory(service, old.memory?.memoryId ?? ""))?.valid_to, null);
  await reconcile(tenant.tenantId);
  const rows = await memoriesTitled(service, tenant.tenantId, "Speiseplan");
  t.deepEqual(
    rows.map((r) => [r.id, r.status, r.valid_to === null]),
    [
      [old.memory?.memoryId, "indexed", false],
      [id, "indexed", true],
    ],
  );
  const oldVectors = await vectorRows(tenant.tenantId, old.memory?.memoryId ?? "");
  t.true(oldVectors.every((r) => r.validTo === rows[1]?.valid_from.getTime()));
});

test("vectors without chunks are removed, validity drift is corrected, lost vectors are rebuilt", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const a = await client.storeMemory({ title: "A", content: "Erste Erinnerung über den Garten." });
  const b = await client.storeMemory({ title: "B", content: "Zweite Erinnerung über die Küche." });
  const aId = a.memory?.memoryId ?? "";
  const bId = b.memory?.memoryId ?? "";
  // Orphans: vectors for chunks PostgreSQL never committed.
  const orphanMemory = randomUUID();
  await service.storage.vectors.upsert(
    tenant.tenantId,
    space(),
    [randomUUID(), randomUUID()].map((chunkId) => ({
      chunkId,
      memoryId: orphanMemory,
      vector: new Float32Array(1024).fill(0.03),
      validFrom: new Date(),
      validTo: null,
    })),
  );
  // Validity drift: LanceDB says A was closed, PostgreSQL says it is current.
  await service.storage.vectors.setValidTo(tenant.tenantId, [aId], new Date("2020-01-01T00:00:00Z"));
  // Lost vector: B's chunk is marked vector_stored, but its vector is gone.
  const [bChunk] = await readChunks(service, bId);
  await service.storage.vectors.deleteChunks(tenant.tenantId, space(), [bChunk?.id ?? ""]);

  const report = await reconcile(tenant.tenantId);
  t.is(report.orphanVectorsRemoved, 2);
  t.is(report.validityFixed, 1);
  t.deepEqual(report.completed, [bId]);
  t.is((await vectorRows(tenant.tenantId, orphanMemory)).length, 0);
  t.deepEqual(
    (await vectorRows(tenant.tenantId, aId)).map((r) => r.validTo),
    [null],
  );
  t.deepEqual(
    (await vectorRows(tenant.tenantId, bId)).map((r) => r.chunkId),
    [bChunk?.id],
  );
  t.is(await service.storage.vectors.count(tenant.tenantId, space()), 2);
  t.deepEqual(await reconcile(tenant.tenantId), {
    completed: [],
    requeued: [],
    orphanVectorsRemoved: 0,
    duplicateVectorsMerged: 0,
    validityFixed: 0,
  });
});

test("a queued memory whose job was lost is enqueued again", async (t) => {
  const tenant = await service.createTenant();
  const response = await ingestClient(service, tenant.token).ingestDocument({
    title: "Verloren",
    content: "Ein Dokument, dessen Job verschwunden ist.",
  });
  const key = `index-memory:${response.documentId}`;
  await service.storage.db.sql`select graphile_worker.remove_job(${key})`;
  const report = await reconcile(tenant.tenantId);
  t.deepEqual(report.requeued, [response.documentId]);
  const jobs = await service.storage.db.sql`select 1 from graphile_worker.jobs where key = ${key}`;
  t.is(jobs.length, 1);
  // A pending job is left alone: nothing is enqueued twice.
  t.deepEqual((await reconcile(tenant.tenantId)).requeued, []);
});

test("young writes are left alone (they may still be running)", async (t) => {
  const tenant = await service.createTenant();
  const id = await crashDuringWrite(service, {
    tenantId: tenant.tenantId,
    hook: "afterPostgresCommit",
    title: "Jung",
    content: "Gerade erst geschrieben.",
  });
  const report = await reconcileTenant(deps, tenant.tenantId, { minAgeMs: 60_000 });
  t.deepEqual(report.completed, []);
  t.is((await readMemory(service, id))?.status, "queued");
});

test("a write that lands between reconcile's LanceDB scan and its PostgreSQL read keeps its chunks stored", async (t) => {
  // The worker-restart flake: after a restart the sweep's reconcile runs beside the index jobs. A
  // memory indexed after reconcile read LanceDB but before it read the chunks looked like a chunk
  // marked vector_stored whose vector is missing, and was marked not stored again.
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  await client.storeMemory({ title: "Vorher", content: "Eine Erinnerung, die vor dem Abgleich stand." });
  let racing: string | undefined;
  const racingDeps: MemoryDeps = {
    ...deps,
    vectors: {
      ...deps.vectors,
      // A write finishes (vectors verified, chunks marked vector_stored) right after LanceDB is read.
      async scan(tenantId, scanned) {
        const rows = await deps.vectors.scan(tenantId, scanned);
        if (racing === undefined) {
          racing = "";
          const { memory } = await client.storeMemory({
            title: "Währenddessen",
            content: "Eine Erinnerung, die während des Abgleichs geschrieben wurde.",
          });
          racing = memory?.memoryId ?? "";
        }
        return rows;
      },
    },
  };
  // The worker's own minimum age: nothing here is old enough to be completed again.
  const report = await reconcileTenant(racingDeps, tenant.tenantId);
  t.truthy(racing);
  const chunks = await readChunks(service, racing ?? "");
  t.true(chunks.length > 0);
  t.true(
    chunks.every((c) => c.vector_stored),
    "the racing write's chunks stay marked stored",
  );
  t.is((await vectorRows(tenant.tenantId, racing ?? "")).length, chunks.length);
  t.deepEqual(report, {
    completed: [],
    requeued: [],
    orphanVectorsRemoved: 0,
    duplicateVectorsMerged: 0,
    validityFixed: 0,
  });
});
