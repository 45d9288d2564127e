import test from "ava";
import { createLogger } from "../../config/logger.js";
import { type Bm25IndexCache, createBm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { B } from "../../core/recall/bm25/bm25-parameters.js";
import { Bm25IndexAhead, searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { findWithIndex, insertMemory, insertTenant, supersede } from "./recall-fixtures.js";

// The derived in-process BM25 index kept current from the change feed (ADR 0230, migration 0230),
// driven the way recall drives it: inside one REPEATABLE READ snapshot per recall.

let database: TestDatabase;
let cache: Bm25IndexCache;

test.before(async () => {
  database = await createTestDatabase();
  cache = createBm25IndexCache({ db: database.db, logger: createLogger("silent"), sweepMs: 0 });
});

test.after.always(async () => {
  cache?.close();
  await database?.drop();
});

/** The chunks a one-word search finds from the index in a fresh snapshot; undefined: SQL fallback. */
const find = (tenantId: string, word: string) => findWithIndex(database.db, cache, tenantId, word);

/** A transaction on a connection of its own, held open until `commit()`. */
function openWriter(write: (tx: import("../../core/store/database.js").TransactionSql) => Promise<string[]>) {
  let commit: () => void = () => undefined;
  let written: (ids: string[]) => void = () => undefined;
  const wrote = new Promise<string[]>((resolve) => {
    written = resolve;
  });
  const held = new Promise<void>((resolve) => {
    commit = resolve;
  });
  const done = database.db.sql.begin(async (tx) => {
    written(await write(tx));
    await held;
  });
  return {
    wrote,
    commit: async () => {
      commit();
      await done;
    },
  };
}

test("a transaction committing after a later one is applied when a snapshot first sees it, never skipped", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Hund bellt."]);
  t.deepEqual(await find(tenant, "Katze"), []);

  // A starts first (older transaction id) and commits last.
  const early = openWriter(async (tx) => {
    await tx`select pg_current_xact_id()`;
    return (await insertMemory(tx, tenant, ["Die Katze schläft."])).chunkIds;
  });
  const earlyIds = await early.wrote;
  const late = (await insertMemory(sql, tenant, ["Die Katze jagt."])).chunkIds;

  // The next recall sees the later transaction (between its xmin and xmax), not the running one.
  t.deepEqual(await find(tenant, "Katze"), [...late].sort());
  await early.commit();
  // …and the one after sees the early transaction too, although the watermark had passed later ones.
  t.deepEqual(await find(tenant, "Katze"), [...late, ...earlyIds].sort());
  t.deepEqual(await find(tenant, "Katze"), [...late, ...earlyIds].sort());
});

test("a recall whose snapshot is older than the shared index does not read it", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Hund bellt."]);
  t.deepEqual(await find(tenant, "Maus"), []);
  const result = await withTenantSnapshot(database.db, tenant, async (tx) => {
    await tx`select 1`; // the snapshot is taken here
    await insertMemory(sql, tenant, ["Die Maus piepst."]);
    t.is((await find(tenant, "Maus"))?.length, 1);
    const view = await cache.open(tx, tenant, async () => 0);
    return view?.search([{ term: "maus", weight: 1 }], { avgdl: 10, b: B }, 10);
  });
  t.is(result, undefined, "the index holds a chunk this snapshot cannot see: SQL must answer");
});

test("the full-text channel asks for a newer snapshot when the index is ahead, and scores in SQL only when told not to", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Hund bellt."]);
  t.deepEqual(await find(tenant, "Maus"), []);
  const outcome = await withTenantSnapshot(database.db, tenant, async (tx) => {
    await tx`select 1`; // the snapshot is taken here
    await insertMemory(sql, tenant, ["Die Maus piepst, der Hund schläft."]);
    t.is((await find(tenant, "Maus"))?.length, 1); // another recall moved the index past this snapshot
    const options = { query: "Hund", depth: 10, index: cache };
    const retry = await searchFulltext(tx, tenant, { ...options, retryWhenIndexAhead: true }).catch(
      (error: unknown) => error,
    );
    const sqlAnswer = await searchFulltext(tx, tenant, { ...options, retryWhenIndexAhead: false });
    return { retry, sqlAnswer };
  });
  t.true(outcome.retry instanceof Bm25IndexAhead);
  // Told not to retry, the SQL scorer answers for the old snapshot: only the chunk it can see.
  t.is(outcome.sqlAnswer.path, "sql");
  t.is(outcome.sqlAnswer.hits.length, 1);
  // A new snapshot sees the write, and the index answers it with both chunks.
  const fresh = await withTenantSnapshot(database.db, tenant, (tx) =>
    searchFulltext(tx, tenant, { query: "Hund", depth: 10, index: cache, retryWhenIndexAhead: true }),
  );
  t.is(fresh.path, "index");
  t.is(fresh.hits.length, 2);
});

test("superseded chunks leave the index; erased ones leave memory, not only results", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const old = await insertMemory(sql, tenant, ["Die Hauptstadt ist Bonn."]);
  const erased = await insertMemory(sql, tenant, ["Geheimwort Zitronenfalter."]);
  await insertMemory(sql, tenant, ["Die Hauptstadt ist Berlin."]);
  t.deepEqual(await find(tenant, "Bonn"), old.chunkIds);
  t.deepEqual(await find(tenant, "Zitronenfalter"), erased.chunkIds);

  await supersede(sql, old.memoryId);
  t.deepEqual(await find(tenant, "Bonn"), []);
  t.is((await find(tenant, "Hauptstadt"))?.length, 1);

  await sql`delete from chunks where memory_id = ${erased.memoryId}`;
  t.deepEqual(await find(tenant, "Zitronenfalter"), []);
  const index = cache.peek(tenant);
  t.truthy(index);
  const [lexeme] = await sql<
    { l: string }[]
  >`select u.lexeme as l from unnest(to_tsvector('german', 'Zitronenfalter')) u`;
  t.is(index?.postingsOf(lexeme?.l ?? ""), 0, "the erased chunk's lexemes are gone from memory");
  t.false(index?.has(erased.chunkIds[0] ?? "") ?? true);
});

test("a rolled-back transaction changes nothing; an update that only marks vectors adds no feed row", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Igel schläft."]);
  t.is((await find(tenant, "Igel"))?.length, 1);
  await sql
    .begin(async (tx) => {
      await insertMemory(tx, tenant, ["Der Igel frisst."]);
      throw new Error("roll back");
    })
    .catch(() => undefined);
  t.is((await find(tenant, "Igel"))?.length, 1);
  const [before] = await sql<
    { n: number }[]
  >`select count(*)::int as n from bm25_chunk_feed where tenant_id = ${tenant}`;
  await sql`update chunks set vector_stored = true where tenant_id = ${tenant}`;
  const [after] = await sql<
    { n: number }[]
  >`select count(*)::int as n from bm25_chunk_feed where tenant_id = ${tenant}`;
  t.is(after?.n, before?.n);
});

test("tenants never see each other's chunks", async (t) => {
  const sql = database.db.sql;
  const a = await insertTenant(sql);
  const b = await insertTenant(sql);
  const inA = await insertMemory(sql, a, ["Der Fuchs schleicht."]);
  const inB = await insertMemory(sql, b, ["Der Fuchs jagt."]);
  t.deepEqual(await find(a, "Fuchs"), inA.chunkIds);
  t.deepEqual(await find(b, "Fuchs"), inB.chunkIds);
  await insertMemory(sql, b, ["Noch ein Fuchs."]);
  t.deepEqual(await find(a, "Fuchs"), inA.chunkIds);
});

test("pruned feed rows below an index's watermark make it rebuild instead of reading the feed", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Dachs gräbt."]);
  t.is((await find(tenant, "Dachs"))?.length, 1);
  await insertMemory(sql, tenant, ["Ein zweiter Dachs."]);
  // Prune every finished row (xmin is cluster-wide: other sessions' open transactions — the rest of
  // the suite runs beside this test — hold it back for a while, so try until every row is gone; 30 s
  // were once not enough in a full CI run, the test's own timeout is 120 s).
  let horizon: number | undefined;
  let left: number | undefined;
  for (let attempt = 0; attempt < 900 && (horizon === undefined || left !== 0); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    await sql`select bm25_chunk_feed_prune(${tenant}, interval '0')`;
    const [row] = await sql<{ b: string }[]>`
      select pruned_below::text as b from bm25_chunk_feed_horizon where tenant_id = ${tenant}`;
    horizon = row === undefined ? undefined : Number(row.b);
    const [count] = await sql<
      { n: number }[]
    >`select count(*)::int as n from bm25_chunk_feed where tenant_id = ${tenant}`;
    left = count?.n;
  }
  t.not(horizon, undefined, "the rows were pruned");
  t.is(left, 0);
  t.is(await find(tenant, "Dachs"), undefined, "the index cannot tell what it missed: SQL answers");
  await cache.idle();
  t.is((await find(tenant, "Dachs"))?.length, 2, "rebuilt from the chunks");
});

test("under a budget that holds one index, sweeping tenants never serves a wrong answer and a hot tenant keeps its index", async (t) => {
  const sql = database.db.sql;
  const hot = await insertTenant(sql);
  const hotIds = (await insertMemory(sql, hot, ["Der Hund bellt laut."])).chunkIds;
  await find(hot, "Hund");
  const oneIndex = cache.peek(hot)?.bytes ?? 0;
  t.true(oneIndex > 0);
  const budget = new MemoryBudget({ budgetBytes: Math.floor(1.5 * oneIndex), windowShare: 0.01 });
  const small = createBm25IndexCache({ db: database.db, logger: createLogger("silent"), sweepMs: 0, budget });
  try {
    const cold: { tenant: string; ids: readonly string[] }[] = [];
    for (let i = 0; i < 6; i++) {
      const tenant = await insertTenant(sql);
      cold.push({
        tenant,
        ids: (await insertMemory(sql, tenant, [`Der Hund Nummer ${i} schläft.`])).chunkIds,
      });
    }
    const findIn = (tenantId: string) =>
      withTenantSnapshot(database.db, tenantId, async (tx) =>
        (await small.open(tx, tenantId, async () => 1))
          ?.search([{ term: "hund", weight: 1 }], { avgdl: 10, b: B }, 10)
          ?.map((h) => h.chunkId),
      );
    // The hot tenant is asked for often, then a sweep asks each cold tenant once, twice over.
    for (let i = 0; i < 5; i++) t.deepEqual(await findIn(hot), [...hotIds]);
    for (let round = 0; round < 2; round++)
      for (const { tenant, ids } of cold) {
        // Admitted or not, the index built for this recall answers it exactly.
        t.deepEqual(await findIn(tenant), [...ids]);
        t.deepEqual(await findIn(hot), [...hotIds]);
      }
    t.truthy(small.peek(hot), "the hot tenant's index survived the sweep");
    t.true(budget.bytes <= budget.budgetBytes);
    t.true(budget.stats().refused + budget.stats().evicted > 0, "the sweep did not fit");
    t.is(small.stats().bytes, budget.bytes);
  } finally {
    small.close();
  }
  t.is(budget.bytes, 0, "close() gives the bytes back");
});
