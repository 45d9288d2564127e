import test from "ava";
import { createLogger } from "../../config/logger.js";
import { type Bm25IndexCache, createBm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import { mergeTopK } from "../../core/recall/bm25/search-bm25-from-index.js";
import type { RecallFilter } from "../../core/recall/filter/recall-filter.js";
import { resolveRecallFilter } from "../../core/recall/filter/resolve-recall-filter.js";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { assertIndexAnswered, assertSameRanking, pseudoSentence } from "./bm25-comparison-kit.js";
import { insertMemory, insertTenant, supersede } from "./recall-fixtures.js";

// Point-in-time BM25 (`as_of`) from the in-process index plus the chunks closed since (issue 23) must
// rank exactly as the SQL scorer over every chunk valid then: the same chunks, order and scores, at
// times before, between and after the versions' starts and ends, to the microsecond, unfiltered and
// through every filter path.

let database: TestDatabase;
let cache: Bm25IndexCache;
let tenant: string;
/** The chunk that starts at EDGE and the one that starts 1 µs after it. */
let edgeChunks: string[] = [];

const WORDS = ["Hund", "Katze", "Vertrag", "Frist", "Lager", "Regal", "Urlaub", "Kalender", "Bonn", "Kunde"];

const sentence = (seed: number) => pseudoSentence(seed, WORDS, 10);

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const minute = (n: number) => new Date(T0 + n * 60_000);
/** An as_of that a chunk starts 1 µs after, and one a chunk starts exactly at. */
const EDGE = minute(150);

test.before(async () => {
  database = await createTestDatabase();
  cache = createBm25IndexCache({ db: database.db, logger: createLogger("silent"), sweepMs: 0 });
  const sql = database.db.sql;
  tenant = await insertTenant(sql);
  const memories: string[] = [];
  for (let i = 0; i < 200; i++) {
    const m = await insertMemory(sql, tenant, [sentence(i), sentence(i + 500)], { validFrom: minute(i) });
    memories.push(m.memoryId);
    await sql`update memories set memory_type = ${i % 9 === 0 ? "episodic" : "semantic"},
                                  tags = ${sql.array([`t${i % 7}`])}::text[] where id = ${m.memoryId}`;
  }
  const edge = await insertMemory(sql, tenant, ["Hund Hund Hund Katze"], { validFrom: EDGE });
  const after = await insertMemory(sql, tenant, ["Hund Hund Hund Katze Katze"], { validFrom: EDGE });
  await sql`update chunks set valid_from = ${EDGE}::timestamptz + interval '1 microsecond'
            where memory_id = ${after.memoryId}`;
  await sql`update memories set valid_from = ${EDGE}::timestamptz + interval '1 microsecond'
            where id = ${after.memoryId}`;
  edgeChunks = [edge.chunkIds[0] as string, after.chunkIds[0] as string];
  // Built now; what follows reaches it through the change feed.
  await withTenantSnapshot(database.db, tenant, (tx) => cache.open(tx, tenant, async () => 0));
  // Versions closed later than they started (some before later memories started), new ones after.
  for (const [j, id] of memories.slice(0, 60).entries()) await supersede(sql, id, minute(120 + 2 * j));
  for (let i = 0; i < 40; i++)
    await insertMemory(sql, tenant, [sentence(i + 2000)], { validFrom: minute(300 + i) });
});

test.after.always(async () => {
  cache?.close();
  await database?.drop();
});

const QUERIES = ["Hund", "Vertrag Frist", "Katze Lager Regal Urlaub", "Bonn Kunde Kalender Hund Katze"];
const TIMES = [minute(-1), minute(30), minute(130), EDGE, minute(200), minute(310), minute(10_000)];

/** Each filter with a depth and listed maximum that lead the index's current part down one path. */
const FILTERS: Record<string, { filter?: RecallFilter; depth: number; listedMax?: number; path: string }> = {
  none: { depth: 20, path: "index-at" },
  "listed (episodic)": { filter: { memoryTypes: ["episodic"] }, depth: 20, path: "index-filter-listed-at" },
  "over-fetch (semantic)": {
    filter: { memoryTypes: ["semantic"] },
    depth: 20,
    listedMax: 10,
    path: "index-filter-overfetch-at",
  },
  "join (tag t3, not listed, over-fetch too shallow)": {
    filter: { tags: { values: ["t3"], match: "any" } },
    depth: 70,
    listedMax: 10,
    path: "index-filter-join-at",
  },
};

for (const [name, { filter, depth, listedMax, path }] of Object.entries(FILTERS)) {
  test(`as_of from the index and the closed chunks equals the SQL scorer at every time: filter ${name}`, async (t) => {
    let closedHits = 0;
    const paths = new Set<string>();
    for (const asOf of TIMES)
      for (const query of QUERIES)
        await withTenantSnapshot(database.db, tenant, async (tx) => {
          const resolved =
            filter === undefined
              ? undefined
              : await resolveRecallFilter(tx, tenant, filter, { asOf, ...(listedMax ? { listedMax } : {}) });
          const sqlResult = await searchFulltext(tx, tenant, { query, depth, asOf, filter: resolved });
          const indexed = await searchFulltext(tx, tenant, {
            query,
            depth,
            asOf,
            filter: resolved,
            index: cache,
          });
          t.is(sqlResult.path, "at");
          paths.add(indexed.path);
          const label = `${query} @ ${asOf.toISOString()}`;
          assertSameRanking(t, indexed, sqlResult, label);
          const ids = indexed.hits.map((h) => h.chunkId);
          const [row] = await tx<{ n: number }[]>`
            select count(*)::int as n from chunks where id = any(${tx.array(ids)}::uuid[]) and valid_to is not null`;
          closedHits += row?.n ?? 0;
        });
    t.true(closedHits > 0, "some top k held chunks closed since (the merge was exercised)");
    assertIndexAnswered(t, paths, path);
  });
}

test("a chunk that starts 1 µs after as_of is not valid then; one that starts at it is", async (t) => {
  await withTenantSnapshot(database.db, tenant, async (tx) => {
    const hits = (
      await searchFulltext(tx, tenant, { query: "Hund Katze", depth: 500, asOf: EDGE, index: cache })
    ).hits;
    const ids = new Set(hits.map((h) => h.chunkId));
    t.true(ids.has(edgeChunks[0] as string));
    t.false(ids.has(edgeChunks[1] as string));
    const later = await searchFulltext(tx, tenant, {
      query: "Hund Katze",
      depth: 500,
      asOf: new Date(EDGE.getTime() + 1),
      index: cache,
    });
    t.true(later.hits.some((h) => h.chunkId === edgeChunks[1]));
  });
});

test("a filter lists exactly the matching versions valid at each instant", async (t) => {
  for (const asOf of TIMES)
    for (const memoryType of ["episodic", "semantic"])
      await withTenantSnapshot(database.db, tenant, async (tx) => {
        const resolved = await resolveRecallFilter(tx, tenant, { memoryTypes: [memoryType] }, { asOf });
        const expected = await tx<{ id: string }[]>`
          select id from memories
          where tenant_id = ${tenant} and memory_type = ${memoryType} and status <> 'failed'
            and valid_from <= ${asOf} and (valid_to is null or valid_to > ${asOf})`;
        t.deepEqual([...(resolved.memoryIds ?? ["not listed"])].sort(), expected.map((r) => r.id).sort());
      });
});

test("mergeTopK keeps the best k by score, then chunk id", (t) => {
  const a = [
    { chunkId: "b", score: 3 },
    { chunkId: "d", score: 1 },
  ];
  const b = [
    { chunkId: "a", score: 3 },
    { chunkId: "c", score: 2 },
  ];
  t.deepEqual(
    mergeTopK(a, b, 3).map((h) => h.chunkId),
    ["a", "b", "c"],
  );
});
