import test from "ava";
import { createLogger } from "../../config/logger.js";
import {
  createTenantModels,
  type TenantModels,
  type TenantModelsOptions,
} from "../../core/keys/tenant-models.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Database } from "../../core/store/database.js";
import { wordHashEmbedder } from "../graph/graph-test-kit.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertTenant } from "../recall/recall-fixtures.js";

// Every store and every recall asks which models serve its workspace. A workspace on the service's
// own models is remembered for a TTL (a transaction of four statements per request otherwise, issue
// #23's bulk ingest and #15's load); a change made through this process is seen at once.

let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});

test.after.always(async () => {
  await database?.drop();
});

/** The database with its tenant transactions counted. */
function counted(db: Database): { db: Database; lookups: () => number } {
  let n = 0;
  return {
    db: {
      ...db,
      withTenant: (tenantId, fn, options) => {
        n++;
        return db.withTenant(tenantId, fn, options);
      },
    },
    lookups: () => n,
  };
}

/** The tenant models of a service without a master key, on `embedder` and no reranker. */
function serviceModels(
  db: Database,
  embedder: EmbeddingProvider,
  options: Pick<TenantModelsOptions, "defaultsTtlMs" | "now"> = {},
): TenantModels {
  return createTenantModels({
    db,
    masterKey: undefined,
    defaultEmbedder: embedder,
    defaultReranker: undefined,
    logger: createLogger("silent"),
    ...options,
  });
}

test("a workspace on the service's models is looked up once per TTL by embedderFor, rerankerFor and modelsFor; forgetTenant ends it", async (t) => {
  const tenantId = await insertTenant(database.db.sql);
  const { db, lookups } = counted(database.db);
  let clock = 1_000;
  const embedder = wordHashEmbedder();
  const models = serviceModels(db, embedder, { defaultsTtlMs: 1_000, now: () => clock });

  t.is(await models.embedderFor(tenantId), embedder);
  t.is(lookups(), 1);
  t.is(await models.embedderFor(tenantId), embedder);
  t.is(await models.rerankerFor(tenantId), undefined);
  t.like(await models.modelsFor(tenantId), { embedder, reranker: undefined, byok: false });
  t.is(lookups(), 1, "within the TTL nothing is read again");

  clock += 1_001;
  await models.embedderFor(tenantId);
  t.is(lookups(), 2, "past the TTL the selection is read again");

  models.forgetTenant(tenantId);
  await models.rerankerFor(tenantId);
  t.is(lookups(), 3, "a change through this process is seen at once");
});

test("a workspace with a selection under way is read on every call, and a lookup racing a change does not remember", async (t) => {
  const tenantId = await insertTenant(database.db.sql);
  // A re-embed under way (target space set): not the service's models, never remembered.
  await database.db.withTenant(tenantId, async (tx) => {
    await tx`insert into tenant_model_selection (tenant_id, target_space) values (${tenantId}, 'elsewhere')`;
  });
  const { db, lookups } = counted(database.db);
  const embedder = wordHashEmbedder();
  const models = serviceModels(db, embedder);
  t.is(await models.embedderFor(tenantId), embedder, "recall and ingest stay in the active space");
  await models.embedderFor(tenantId);
  await models.modelsFor(tenantId);
  t.is(lookups(), 3);

  await database.db.withTenant(tenantId, async (tx) => {
    await tx`delete from tenant_model_selection where tenant_id = ${tenantId}`;
  });
  // forgetTenant while the lookup is in flight: what it read may predate the change.
  const racing = models.embedderFor(tenantId);
  models.forgetTenant(tenantId);
  await racing;
  await models.embedderFor(tenantId);
  t.is(lookups(), 5, "the racing lookup did not remember the service's models");
  await models.embedderFor(tenantId);
  t.is(lookups(), 5, "the next one did");
});

test("requests arriving while a workspace's selection is read wait for that read instead of each reading it", async (t) => {
  const tenantId = await insertTenant(database.db.sql);
  const { db, lookups } = counted(database.db);
  const embedder = wordHashEmbedder();
  const models = serviceModels(db, embedder, { defaultsTtlMs: 1_000 });
  // Fifty connections whose cached answer ran out at the same moment.
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      i % 3 === 0
        ? models.embedderFor(tenantId)
        : i % 3 === 1
          ? models.modelsFor(tenantId).then((m) => m.embedder)
          : models.rerankerFor(tenantId).then(() => embedder),
    ),
  );
  t.true(answers.every((e) => e === embedder));
  t.is(lookups(), 1);
});
