import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import { type TestService, waitFor } from "../helpers/test-service.js";
import {
  expectFailure,
  ingestClient,
  longGermanText,
  memoriesTitled,
  readChunks,
  readMemory,
  startIngestService,
} from "./ingest-test-kit.js";

// service_upload_document through IngestService.UploadDocument (spec behaviour rule 3: upsert-by-title,
// the old document removed only after the new ingest succeeded, ids in replaced_document_ids).

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

async function nearest(tenantId: string, text: string, asOf?: Date): Promise<string[]> {
  const [query] = await service.models.embedder.embed([text], "query");
  const hits = await service.storage.vectors.search(
    tenantId,
    service.models.embedder.id,
    query ?? new Float32Array(0),
    10,
    asOf ? { asOf } : {},
  );
  return hits.map((h) => h.memoryId);
}

test("a document is indexed inline and a second upload with the same title replaces it", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const v1 = await client.uploadDocument({
    title: "Urlaubsregelung",
    content: "Jeder Mitarbeiter hat 28 Tage Urlaub im Jahr.",
    source: "wiki/urlaub.md",
  });
  t.is(v1.memory?.status, IndexStatus.INDEXED);
  t.deepEqual(v1.memory?.replacedDocumentIds, []);
  const oldId = v1.memory?.memoryId ?? "";
  const beforeReplace = new Date();

  const v2 = await client.uploadDocument({
    title: "Urlaubsregelung",
    content: "Jeder Mitarbeiter hat 30 Tage Urlaub im Jahr.",
    source: "wiki/urlaub.md",
  });
  const newId = v2.memory?.memoryId ?? "";
  t.not(newId, oldId);
  t.is(v2.memory?.status, IndexStatus.INDEXED);
  t.deepEqual(v2.memory?.replacedDocumentIds, [oldId]);
  t.is(v2.memory?.quota?.memoriesUsed, 1n);

  // The old version leaves the current view but stays in history: valid_to = the new valid_from, same lineage.
  const [oldRow, newRow] = [await readMemory(service, oldId), await readMemory(service, newId)];
  t.is(oldRow?.kind, "document");
  t.is(oldRow?.source, "wiki/urlaub.md");
  t.deepEqual(oldRow?.valid_to, newRow?.valid_from);
  t.is(newRow?.valid_to, null);
  t.is(newRow?.lineage_id, oldRow?.lineage_id);
  t.true((await readChunks(service, oldId)).every((c) => c.valid_to !== null));
  t.true((await readChunks(service, newId)).every((c) => c.valid_to === null));

  // LanceDB follows: current search sees only the new version, a search before the upload the old one.
  t.deepEqual(await nearest(tenant.tenantId, "Wie viele Urlaubstage gibt es?"), [newId]);
  t.deepEqual(await nearest(tenant.tenantId, "Wie viele Urlaubstage gibt es?", beforeReplace), [oldId]);
});

test("uploading byte-identical content again returns the current document with unchanged", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const request = { title: "Hausordnung", content: "Ruhezeiten sind von 22 bis 6 Uhr." };
  const first = await client.uploadDocument(request);
  const second = await client.uploadDocument(request);
  t.is(second.memory?.memoryId, first.memory?.memoryId);
  t.true(second.memory?.unchanged);
  t.deepEqual(second.memory?.replacedDocumentIds, []);
  const rows = await memoriesTitled(service, tenant.tenantId, "Hausordnung");
  t.is(rows.length, 1);
  t.is(rows[0]?.valid_to, null);
});

test("content over 1,000,000 characters is too_large; empty content is content_required", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const big = await expectFailure(
    t,
    client.uploadDocument({ title: "Riesig", content: "a".repeat(1_000_001) }),
    Code.InvalidArgument,
  );
  t.is(big.reason, "too_large");
  t.regex(big.message, /split/);
  const empty = await expectFailure(
    t,
    client.uploadDocument({ title: "Leer", content: "" }),
    Code.InvalidArgument,
  );
  t.is(empty.reason, "content_required");
});

test("a large document is queued, indexed by the worker, and then replaces the old one", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const old = await client.uploadDocument({
    title: "Handbuch",
    content: "Kurze alte Fassung des Handbuchs.",
  });
  const oldId = old.memory?.memoryId ?? "";
  const big = await client.uploadDocument({ title: "Handbuch", content: longGermanText(80, "Handbuch") });
  t.is(big.memory?.status, IndexStatus.QUEUED);
  // Replaced ids are only known once the worker has indexed the new version.
  t.deepEqual(big.memory?.replacedDocumentIds, []);
  const newId = big.memory?.memoryId ?? "";
  // Until then the old document is still the current one.
  t.is((await readMemory(service, oldId))?.valid_to, null);

  // The job is done (and gone from the queue) once the vectors are closed too, not just PostgreSQL.
  await waitFor(
    async () => {
      const jobs = await service.storage.db.sql`
        select 1 from graphile_worker.jobs where key = ${`index-memory:${newId}`}`;
      return jobs.length === 0 ? true : undefined;
    },
    { what: "the worker to index the new version and replace the old", timeoutMs: 60_000 },
  );
  const [oldRow, newRow] = [await readMemory(service, oldId), await readMemory(service, newId)];
  t.is(newRow?.status, "indexed");
  t.true((newRow?.chunks_written ?? 0) > 1);
  t.deepEqual(oldRow?.valid_to, newRow?.valid_from);
  t.is(newRow?.lineage_id, oldRow?.lineage_id);
  const current = await nearest(tenant.tenantId, "Kurze alte Fassung des Handbuchs");
  t.false(current.includes(oldId));
  t.true(current.includes(newId));
});

test("concurrent uploads of one title leave exactly one current document", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      client.uploadDocument({ title: "Protokoll", content: `Fassung ${i}: Beschlüsse der Sitzung.` }),
    ),
  );
  t.is(new Set(results.map((r) => r.memory?.memoryId)).size, 5);
  const rows = await memoriesTitled(service, tenant.tenantId, "Protokoll");
  const current = rows.filter((r) => r.valid_to === null);
  t.is(current.length, 1);
  // The newest upload wins, and every other version is closed in one lineage.
  t.is(current[0]?.id, rows.at(-1)?.id);
  t.is(new Set(rows.map((r) => r.lineage_id)).size, 1);
  const replaced = results.flatMap((r) => r.memory?.replacedDocumentIds ?? []);
  t.is(new Set(replaced).size, 4);
});

test("the replaced document's relations move to the new version (docs/graph.md carry-over)", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const graph = createClient(
    GraphService,
    createGrpcTransport({
      baseUrl: service.grpcUrl,
      interceptors: [
        (next) => (req) => {
          req.header.set("authorization", `Bearer ${tenant.token}`);
          return next(req);
        },
      ],
    }),
  );
  const note = await client.storeMemory({ title: "Notiz", content: "Siehe das Angebot." });
  const v1 = await client.uploadDocument({ title: "Angebot", content: "Angebot über 100 Stunden." });
  const noteId = note.memory?.memoryId ?? "";
  await graph.link({ fromId: noteId, toId: v1.memory?.memoryId ?? "", relType: "REFERENCES" });
  const v2 = await client.uploadDocument({ title: "Angebot", content: "Angebot über 120 Stunden." });
  const newId = v2.memory?.memoryId ?? "";
  const relations = await graph.listRelations({ memoryId: noteId });
  t.deepEqual(
    relations.outgoing.map((r) => [r.relType, r.to]),
    [["REFERENCES", newId]],
  );
  const incoming = await graph.listRelations({ memoryId: newId });
  t.deepEqual(
    incoming.incoming.map((r) => [r.relType, r.from]),
    [["REFERENCES", noteId]],
  );
});
