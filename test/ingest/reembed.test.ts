import test from "ava";
import { createLogger } from "../../config/logger.js";
import type { MemoryDeps } from "../../core/memories/memory-deps.js";
import { REEMBED_TENANT_TASK } from "../../core/memories/memory-jobs.js";
import { reembedTenant } from "../../core/memories/reembed-tenant.js";
import { runMaintenanceSweep } from "../../core/memories/schedule-maintenance.js";
import { createBuiltinEmbedder } from "../../core/models/builtin/create-builtin-embedder.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { TestService } from "../helpers/test-service.js";
import { ingestClient, readChunks, readMemory, startIngestService } from "./ingest-test-kit.js";

// Issue: "a re-embed job migrates a tenant to a new embedding space" — switching provider never mixes
// spaces: every version (closed ones too) is embedded again into the new (tenant, space) table, then
// the old table is dropped.

let service: TestService;
let next: EmbeddingProvider;
let deps: MemoryDeps;

test.before(async () => {
  service = await startIngestService({ worker: false });
  // Another space: the built-in embedder without its dictionary ("…-nolex").
  next = await createBuiltinEmbedder({ lexicon: false });
  deps = {
    db: service.storage.db,
    vectors: service.storage.vectors,
    embedder: next,
    logger: createLogger("silent"),
  };
});

test.after.always(async () => {
  await service?.stop();
});

test("re-embedding moves every version into the new space and drops the old table", async (t) => {
  const before = service.models.embedder.id;
  t.not(next.id, before);
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const note = await client.storeMemory({
    title: "Rezept",
    content: "Für Pfannkuchen braucht man Mehl, Eier und Milch.",
  });
  const v1 = await client.uploadDocument({ title: "Regeln", content: "Hunde sind im Büro erlaubt." });
  const v2 = await client.uploadDocument({
    title: "Regeln",
    content: "Hunde sind im Büro nicht mehr erlaubt.",
  });
  const ids = [note.memory?.memoryId ?? "", v1.memory?.memoryId ?? "", v2.memory?.memoryId ?? ""];
  t.deepEqual(await service.storage.vectors.spaces(tenant.tenantId), [before]);

  // The sweep notices versions outside the current space and enqueues the tenant's migration.
  await runMaintenanceSweep(service.storage.db.sql, next.id, await service.storage.vectors.listTables());
  const jobs = await service.storage.db.sql`
    select 1 from graphile_worker.jobs where key = ${`${REEMBED_TENANT_TASK}:${tenant.tenantId}`}`;
  t.is(jobs.length, 1);

  const report = await reembedTenant(deps, tenant.tenantId);
  t.is(report.migrated, 3);
  t.deepEqual(report.droppedSpaces, [before]);
  t.deepEqual(await service.storage.vectors.spaces(tenant.tenantId), [next.id]);
  for (const id of ids) t.is((await readMemory(service, id))?.embedding_space, next.id);
  const chunkCount = (await Promise.all(ids.map((id) => readChunks(service, id)))).flat().length;
  t.is(await service.storage.vectors.count(tenant.tenantId, next.id), chunkCount);

  // Validity survives the move: the replaced version is only found at a time it was valid.
  const [query] = await next.embed(["Hunde im Büro"], "query");
  const current = await service.storage.vectors.search(tenant.tenantId, next.id, query!, 5);
  t.false(current.some((h) => h.memoryId === ids[1]));
  const v2Row = await readMemory(service, ids[2] ?? "");
  const past = await service.storage.vectors.search(tenant.tenantId, next.id, query!, 5, {
    asOf: new Date((v2Row?.valid_from.getTime() ?? 0) - 1),
  });
  t.true(past.some((h) => h.memoryId === ids[1]));

  // Idempotent.
  t.deepEqual(await reembedTenant(deps, tenant.tenantId), { migrated: 0, droppedSpaces: [] });
});
