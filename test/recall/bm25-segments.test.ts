import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { type Bm25IndexCache, createBm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { segmentPath } from "../../core/recall/bm25/bm25-segment-file.js";
import { rehearseRecall } from "../../core/recall/rehearse-recall.js";
import { type WarmUp, waitForFirstWarm, warmWorkspaces } from "../../core/recall/warm-workspaces.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { loadTestModels } from "../ingest/ingest-test-kit.js";
import { findWithIndex, insertMemory, insertTenant, supersede } from "./recall-fixtures.js";

// Each workspace's BM25 index on disk (ADR 0370): a process that starts (or a workspace the budget
// evicted) loads it instead of rebuilding from PostgreSQL, catches up from the change feed, and
// answers exactly what the snapshot sees; erasure removes the file's copy of the erased text.

let database: TestDatabase;
let directory: string;

test.before(async () => {
  database = await createTestDatabase();
  directory = await mkdtemp(join(tmpdir(), "memory-bm25-segments-"));
});

test.after.always(async () => {
  await database?.drop();
  await rm(directory, { recursive: true, force: true });
});

/** A cache as one process holds it; `close()` then a new one is a restart. */
const openCache = (segmentDirectory = directory) =>
  createBm25IndexCache({ db: database.db, logger: createLogger("silent"), sweepMs: 0, segmentDirectory });

const find = (cache: Bm25IndexCache, tenantId: string, word: string) =>
  findWithIndex(database.db, cache, tenantId, word);

test("after a restart the index is loaded from its file, caught up from the feed, and answers exactly", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const dog = await insertMemory(sql, tenant, ["Der Hund bellt.", "Der Hund schläft."]);
  const old = await insertMemory(sql, tenant, ["Die Katze in Bonn."]);
  const first = openCache();
  t.deepEqual(await find(first, tenant, "Hund"), [...dog.chunkIds].sort());
  await first.idle();
  t.truthy(await readFile(segmentPath(directory, tenant)), "the built index was written");
  first.close();

  // While no process holds the index: one memory added, one superseded.
  const cat = await insertMemory(sql, tenant, ["Die Katze in Berlin."]);
  await supersede(sql, old.memoryId);

  const second = openCache();
  try {
    t.deepEqual(await find(second, tenant, "Katze"), [...cat.chunkIds].sort());
    t.deepEqual(await find(second, tenant, "Hund"), [...dog.chunkIds].sort());
    const stats = second.stats();
    t.is(stats.loaded, 1, "loaded from the file");
    t.is(stats.builds, 0, "not rebuilt from PostgreSQL");
  } finally {
    second.close();
  }
});

test("a damaged file is removed and the index rebuilt; a missing one is built", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const dog = await insertMemory(sql, tenant, ["Der Hund bellt."]);
  await writeFile(segmentPath(directory, tenant), Buffer.from("BM25SEG1 but not really"));
  const cache = openCache();
  try {
    t.deepEqual(await find(cache, tenant, "Hund"), dog.chunkIds);
    t.is(cache.stats().builds, 1);
    await cache.idle();
    // The rebuilt index replaced the damaged file: a restart loads it.
    const again = openCache();
    t.deepEqual(await find(again, tenant, "Hund"), dog.chunkIds);
    t.is(again.stats().loaded, 1);
    again.close();
  } finally {
    cache.close();
  }
});

test("erasure: chunks erased while the index is only on disk remove its file; a forgotten workspace leaves none", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  const secret = await insertMemory(sql, tenant, ["Geheimwort Zitronenfalter."]);
  await insertMemory(sql, tenant, ["Der Hund bellt."]);
  const first = openCache();
  t.deepEqual(await find(first, tenant, "Zitronenfalter"), secret.chunkIds);
  await first.idle();
  first.close();
  t.true((await readFile(segmentPath(directory, tenant))).includes("zitronenfalt"));

  await sql`delete from chunks where memory_id = ${secret.memoryId}`;
  const second = openCache();
  // What lifecycle's onChunksErased calls: the index is not in this process's memory.
  await second.refresh(tenant);
  await t.throwsAsync(readFile(segmentPath(directory, tenant)), { code: "ENOENT" });
  t.deepEqual(await find(second, tenant, "Zitronenfalter"), []);
  t.is((await find(second, tenant, "Hund"))?.length, 1);
  await second.idle();
  t.false((await readFile(segmentPath(directory, tenant))).includes("zitronenfalt"), "rebuilt without it");

  // Erased while held: the catch-up compacts and the file is rewritten without the text.
  const held = await insertMemory(sql, tenant, ["Geheimwort Schwalbenschwanz."]);
  t.deepEqual(await find(second, tenant, "Schwalbenschwanz"), held.chunkIds);
  await sql`delete from chunks where memory_id = ${held.memoryId}`;
  await second.refresh(tenant);
  await second.idle();
  t.false((await readFile(segmentPath(directory, tenant))).includes("schwalbenschwanz"));

  await second.forget(tenant);
  t.false(
    (await readdir(directory)).some((f) => f.startsWith(tenant)),
    "a forgotten workspace has no file",
  );
  second.close();
});

test("a restart warms the last run's hot workspaces from their files before any recall asks", async (t) => {
  const sql = database.db.sql;
  const hot = await insertTenant(sql);
  const dog = await insertMemory(sql, hot, ["Der Hund bellt."]);
  // A directory of its own: the other tests' caches write their hot lists too.
  const own = await mkdtemp(join(tmpdir(), "memory-bm25-warm-"));
  const first = openCache(own);
  for (let i = 0; i < 3; i++) await find(first, hot, "Hund");
  await first.idle();
  first.close(); // writes the hot list

  const vectorDir = await mkdtemp(join(tmpdir(), "memory-bm25-warm-vectors-"));
  const vectors = await openVectorStore(vectorDir);
  const second = openCache(own);
  try {
    t.true((await second.hotList()).includes(hot));
    const rehearsed: string[] = [];
    const warmUp = warmWorkspaces({
      bm25Index: second,
      vectors,
      budget: undefined,
      logger: createLogger("silent"),
      rehearse: async (tenantId) => {
        rehearsed.push(tenantId);
      },
    });
    // What a starting process waits for before it listens (ADR 0495): the list's first workspaces,
    // their indexes loaded and their recall rehearsed.
    const waited = await waitForFirstWarm(warmUp, 10_000);
    t.true(waited.ready, "the hot list's first workspaces were warm within the limit");
    t.true(rehearsed.includes(hot), "its recall was rehearsed before the process takes calls");
    t.truthy(second.peek(hot), "held before the process takes calls");
    await warmUp.done;
    t.truthy(second.peek(hot), "held before its first recall");
    t.is(second.stats().builds, 0);
    t.deepEqual(await find(second, hot, "Hund"), dog.chunkIds);
  } finally {
    second.close();
    vectors.close();
    await rm(vectorDir, { recursive: true, force: true });
    await rm(own, { recursive: true, force: true });
  }
});

test("the wait before listening is bounded: a warm-up still under way at the limit does not hold the start", async (t) => {
  // A warm-up whose first workspaces never finish (a stuck disk): the start goes on after the limit.
  const stuck: WarmUp = {
    stop: () => undefined,
    done: new Promise(() => undefined),
    first: new Promise(() => undefined),
  };
  const started = performance.now();
  const waited = await waitForFirstWarm(stuck, 200);
  t.false(waited.ready);
  t.true(performance.now() - started >= 190, "waited the limit");
  t.deepEqual(await waitForFirstWarm(stuck, 0), { ms: 0, ready: false }, "0: listen at once");
  t.deepEqual(
    await waitForFirstWarm(undefined, 5_000),
    { ms: 0, ready: true },
    "no warm-up (BM25_INDEX=sql)",
  );
});

test("a rehearsed recall runs the workspace's real pipeline with its own words, and a workspace without chunks is skipped", async (t) => {
  const sql = database.db.sql;
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Der Hund bellt im Garten."]);
  const empty = await insertTenant(sql);
  const models = await loadTestModels();
  const vectorDir = await mkdtemp(join(tmpdir(), "memory-rehearse-vectors-"));
  const vectors = await openVectorStore(vectorDir);
  const cache = openCache(await mkdtemp(join(tmpdir(), "memory-rehearse-")));
  try {
    const deps = {
      db: database.db,
      vectors,
      embedder: models.embedder,
      reranker: models.reranker,
      lexicon: undefined,
      logger: createLogger("silent"),
      bm25Index: cache,
    };
    t.falsy(cache.peek(tenant));
    await rehearseRecall(deps, tenant);
    await cache.idle();
    t.truthy(cache.peek(tenant), "the BM25 channel ran: the workspace's index is held");
    await rehearseRecall(deps, empty);
    t.falsy(cache.peek(empty), "nothing to rehearse with: nothing opened");
  } finally {
    cache.close();
    vectors.close();
    await models.close();
    await rm(vectorDir, { recursive: true, force: true });
  }
});
