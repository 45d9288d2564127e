import test from "ava";
import { createLogger } from "../../config/logger.js";
import { type Bm25IndexCache, createBm25IndexCache } from "../../core/recall/bm25/bm25-index-cache.js";
import type { RecallFilter } from "../../core/recall/filter/recall-filter.js";
import { resolveRecallFilter } from "../../core/recall/filter/resolve-recall-filter.js";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { assertIndexAnswered, assertSameRanking, pseudoSentence } from "./bm25-comparison-kit.js";
import { insertMemory, insertTenant, supersede } from "./recall-fixtures.js";

// The in-process index must rank exactly as the SQL design over the chunks' tsvectors (ADR 0230, migration 0250): same chunks,
// same order, same scores, unfiltered and through every filter path, after supersedes and erasures.

let database: TestDatabase;
let cache: Bm25IndexCache;
let tenant: string;

const WORDS = [
  "Hund",
  "Katze",
  "Vertrag",
  "Frist",
  "Lager",
  "Regal",
  "Urlaub",
  "Kalender",
  "Bonn",
  "Berlin",
  "Kündigung",
  "Rechnung",
  "Spedition",
  "Monat",
  "Woche",
  "Team",
  "Release",
  "Server",
  "Fehler",
  "Kunde",
];

const sentence = (seed: number) => pseudoSentence(seed, WORDS, 12);

test.before(async () => {
  database = await createTestDatabase();
  cache = createBm25IndexCache({ db: database.db, logger: createLogger("silent"), sweepMs: 0 });
  const sql = database.db.sql;
  tenant = await insertTenant(sql);
  const memories: string[] = [];
  for (let i = 0; i < 400; i++) {
    const m = await insertMemory(sql, tenant, [sentence(i), sentence(i + 1000)]);
    memories.push(m.memoryId);
    await sql`update memories set memory_type = ${i % 9 === 0 ? "episodic" : "semantic"},
                                  tags = ${sql.array([`t${i % 7}`])}::text[] where id = ${m.memoryId}`;
  }
  // Build the index now, then change the corpus so the comparisons also cover the feed's changes.
  await withTenantSnapshot(database.db, tenant, (tx) => cache.open(tx, tenant, async () => 0));
  for (const id of memories.slice(0, 40)) await supersede(sql, id);
  for (const id of memories.slice(40, 60)) await sql`delete from chunks where memory_id = ${id}`;
  for (let i = 400; i < 450; i++) await insertMemory(sql, tenant, [sentence(i)]);
});

test.after.always(async () => {
  cache?.close();
  await database?.drop();
});

const QUERIES = [
  "Hund",
  "Kündigung Frist Vertrag",
  "Katze Lager Regal Urlaub",
  "Release Server Fehler Kunde Team Woche",
  "Berlin Bonn",
  "Rechnung Spedition Monat Kalender Hund Katze Vertrag",
];

/** Each filter with a depth and listed maximum that lead search-bm25-filtered.ts down one path. */
const FILTERS: Record<string, { filter?: RecallFilter; depth: number; listedMax?: number; path: string }> = {
  none: { depth: 25, path: "index" },
  "listed (episodic)": { filter: { memoryTypes: ["episodic"] }, depth: 25, path: "index-filter-listed" },
  "over-fetch (semantic)": {
    filter: { memoryTypes: ["semantic"] },
    depth: 25,
    path: "index-filter-overfetch",
  },
  "join (tag t3, not listed, over-fetch too shallow)": {
    filter: { tags: { values: ["t3"], match: "any" } },
    depth: 70,
    listedMax: 30,
    path: "index-filter-join",
  },
};

for (const [name, { filter, depth, listedMax, path }] of Object.entries(FILTERS)) {
  test(`index and SQL postings give the same top k: filter ${name}`, async (t) => {
    const paths = new Set<string>();
    for (const query of QUERIES) {
      await withTenantSnapshot(database.db, tenant, async (tx) => {
        const resolved =
          filter === undefined
            ? undefined
            : await resolveRecallFilter(tx, tenant, filter, listedMax === undefined ? {} : { listedMax });
        const sqlResult = await searchFulltext(tx, tenant, { query, depth, filter: resolved });
        const indexed = await searchFulltext(tx, tenant, { query, depth, filter: resolved, index: cache });
        paths.add(indexed.path);
        t.false(sqlResult.path.startsWith("index"));
        t.true(sqlResult.hits.length > 0, query);
        assertSameRanking(t, indexed, sqlResult, query);
      });
    }
    assertIndexAnswered(t, paths, path);
  });
}
