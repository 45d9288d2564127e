import test from "ava";
import { createRandom } from "../../bench/synthetic-corpus.js";
import { analyzeQueryTexts } from "../../core/recall/bm25/analyze-query-texts.js";
import { B, tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { planBm25Terms } from "../../core/recall/bm25/plan-bm25-terms.js";
import { searchBm25 } from "../../core/recall/bm25/search-bm25.js";
import { averageLength, readCollectionStatistics } from "../../core/recall/read-collection-statistics.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertMemory, insertTenant, recount, supersede } from "./recall-fixtures.js";

let database: TestDatabase;
let tenant: string;
// German nouns and verbs whose stems are distinct, drawn with a skewed (Zipf-like) frequency.
const VOCABULARY = (
  "haus baum stadt fluss berg wald auto zug schiff brief buch tisch stuhl fenster garten straße schule kirche " +
  "markt hafen brücke turm insel feld dorf könig kaiser ritter bauer händler lehrer schüler arzt richter " +
  "laufen sehen bauen fahren schreiben lesen singen tanzen kaufen verkaufen"
).split(" ");

test.before(async () => {
  database = await createTestDatabase();
  tenant = await insertTenant(database.db.sql);
  const random = createRandom(7);
  const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2)] ?? "haus";
  for (let m = 0; m < 120; m++) {
    const chunks = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
      Array.from({ length: 3 + Math.floor(random() * 40) }, word).join(" "),
    );
    await insertMemory(database.db.sql, tenant, chunks);
  }
});

test.after.always(async () => {
  await database?.drop();
});

/** BM25 of every current chunk, from the chunks' own tsvectors. */
async function bruteForce(query: string) {
  const sql = database.db.sql;
  const { postings, chunkCount, totalLength } = await recount(sql, tenant);
  const terms = await withTenantSnapshot(database.db, tenant, async (tx) => {
    const collection = await readCollectionStatistics(tx, tenant);
    return planBm25Terms(await analyzeQueryTexts(tx, tenant, [query]), [1], collection.chunkCount);
  });
  const avgdl = totalLength / chunkCount;
  const scores = new Map<string, number>();
  for (const p of postings) {
    const term = terms.find((t) => t.term === p.term);
    if (term)
      scores.set(
        p.chunk_id,
        (scores.get(p.chunk_id) ?? 0) + term.weight * tfPart(p.tf, p.doc_len, { avgdl, b: B }),
      );
  }
  return [...scores.values()].sort((a, b) => b - a);
}

async function search(query: string, k: number) {
  return withTenantSnapshot(database.db, tenant, async (tx) => {
    const collection = await readCollectionStatistics(tx, tenant);
    const terms = planBm25Terms(await analyzeQueryTexts(tx, tenant, [query]), [1], collection.chunkCount);
    return searchBm25(tx, tenant, terms, collection, k);
  });
}

const QUERIES = [
  "Haus",
  "Häuser und Bäume",
  "der König baut eine Brücke über den Fluss",
  "Schüler lesen Bücher in der Schule am Markt",
  "Ritter Bauer Händler Lehrer Arzt Richter Kaiser",
  "Schiff Hafen Insel",
  "verkaufen",
  "ein Wort, das es nicht gibt",
];

for (const k of [1, 5, 20]) {
  test(`top ${k} equals brute-force BM25 for one-word to many-word queries`, async (t) => {
    for (const query of QUERIES) {
      const expected = (await bruteForce(query)).slice(0, k);
      const { hits, path } = await search(query, k);
      t.deepEqual(
        hits.map((h) => h.score.toFixed(9)),
        expected.map((s) => s.toFixed(9)),
        `${query} (${path})`,
      );
    }
  });
}

test("equal scores are ordered by chunk id, and k bounds the answer", async (t) => {
  const { hits } = await search("Ritter Bauer Händler Lehrer Arzt Richter Kaiser", 20);
  t.is(hits.length, 20);
  for (let i = 1; i < hits.length; i++) {
    const [a, b] = [hits[i - 1], hits[i]];
    if (!a || !b) continue;
    t.true(a.score > b.score || (a.score === b.score && a.chunkId < b.chunkId));
  }
});

test("point-in-time search scores the versions valid then, and only those", async (t) => {
  const sql = database.db.sql;
  // A tenant of its own: the other tests compare against a corpus that must not change under them.
  const tenant = await insertTenant(sql);
  await insertMemory(sql, tenant, ["Ballon Fahrt"]);
  const before = new Date(Date.now() - 60_000);
  const old = await insertMemory(sql, tenant, ["Zeppelin Luftschiff Zeppelin"], { validFrom: before });
  const then = new Date(Date.now() - 30_000);
  await supersede(sql, old.memoryId, new Date(Date.now() - 10_000));
  const now = await withTenantSnapshot(database.db, tenant, async (tx) => {
    const collection = await readCollectionStatistics(tx, tenant);
    const terms = planBm25Terms(
      await analyzeQueryTexts(tx, tenant, ["Zeppelin"]),
      [1],
      collection.chunkCount,
    );
    return searchBm25(tx, tenant, terms, collection, 5);
  });
  t.deepEqual(now.hits, []);
  const past = await withTenantSnapshot(database.db, tenant, async (tx) => {
    const collection = await readCollectionStatistics(tx, tenant);
    const terms = planBm25Terms([{ textIndex: 0, lexeme: "zeppelin", df: 1 }], [1], collection.chunkCount);
    return {
      hits: (await searchBm25(tx, tenant, terms, collection, 5, { asOf: then })).hits,
      avgdl: averageLength(collection),
      terms,
    };
  });
  t.deepEqual(
    past.hits.map((h) => h.chunkId),
    old.chunkIds,
  );
  const weight = past.terms[0]?.weight ?? 0;
  t.true(Math.abs((past.hits[0]?.score ?? 0) - weight * tfPart(2, 3, { avgdl: past.avgdl, b: B })) < 1e-9);
  const earlier = await withTenantSnapshot(database.db, tenant, async (tx) =>
    searchBm25(tx, tenant, past.terms, await readCollectionStatistics(tx, tenant), 5, {
      asOf: new Date(before.getTime() - 1),
    }),
  );
  t.deepEqual(earlier.hits, []);
});
