import test from "ava";
import type { Lexicon } from "../../core/models/lexicon/lexicon.js";
import { loadLexicon } from "../../core/models/lexicon/load-lexicon.js";
import { searchFulltext } from "../../core/recall/search-fulltext.js";
import { withTenantSnapshot } from "../../core/store/with-tenant-snapshot.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { LEXICON_CACHE } from "../ingest/ingest-test-kit.js";
import { insertMemory, insertTenant } from "./recall-fixtures.js";

/**
 * German compounds against their parts written apart (issue #6: "Datenschutzbeauftragter" vs
 * "Beauftragter für Datenschutz"), both directions. Every compound document has distractors that
 * share one part, so a match on one part alone does not win.
 */
const PAIRS = [
  [
    "Der Datenschutzbeauftragter prüft die Verträge.",
    "Beauftragter für Datenschutz",
    "Der Beauftragte des Vereins prüft die Kasse.",
  ],
  ["Die Haustür klemmt seit gestern.", "Tür am Haus", "Die Tür zum Keller klemmt."],
  [
    "Der Verteidigungsminister besucht die Truppe.",
    "Minister für Verteidigung",
    "Der Minister besucht die Schule.",
  ],
  ["Das Kinderzimmer wird blau gestrichen.", "Zimmer der Kinder", "Das Zimmer im Hotel ist blau."],
  ["Die Wasserflasche steht im Kühlschrank.", "Flasche für Wasser", "Die Flasche Wein steht im Regal."],
  ["Der Bahnhofsvorsteher pfeift.", "Vorsteher am Bahnhof", "Der Vorsteher der Gemeinde spricht."],
  ["Unsere Geburtstagsfeier war laut.", "Feier zum Geburtstag", "Die Feier im Büro war laut."],
  ["Der Schulbus kommt um sieben.", "Bus zur Schule", "Der Bus nach Berlin kommt um acht."],
] as const;

let database: TestDatabase;
/** Compound documents and distractors; split-form documents and distractors. */
let compoundTenant: string;
let splitTenant: string;
let lexicon: Lexicon;
const compoundIds: string[] = [];
const splitIds: string[] = [];

test.before(async () => {
  database = await createTestDatabase();
  compoundTenant = await insertTenant(database.db.sql);
  splitTenant = await insertTenant(database.db.sql);
  lexicon = (await loadLexicon({ cacheDirectory: LEXICON_CACHE })).lexicon;
  for (const [compound, split, distractor] of PAIRS) {
    compoundIds.push((await insertMemory(database.db.sql, compoundTenant, [compound])).memoryId);
    splitIds.push((await insertMemory(database.db.sql, splitTenant, [`${split}: ein Eintrag.`])).memoryId);
    await insertMemory(database.db.sql, compoundTenant, [distractor]);
    await insertMemory(database.db.sql, splitTenant, [distractor]);
  }
});

test.after.always(async () => {
  await database?.drop();
});

async function reciprocalRank(
  tenant: string,
  query: string,
  target: string,
  options: { join: number; lexicon?: Lexicon },
) {
  const hits = await withTenantSnapshot(database.db, tenant, async (tx) => {
    const { hits } = await searchFulltext(tx, tenant, {
      query,
      depth: 10,
      compoundJoinWeight: options.join,
      ...(options.lexicon ? { lexicon: options.lexicon } : {}),
    });
    const rows = await tx<{ id: string; memory_id: string }[]>`
      select id, memory_id from chunks where id = any(${tx.array(hits.map((h) => h.chunkId))}::uuid[])`;
    const memoryOf = new Map(rows.map((r) => [r.id, r.memory_id]));
    return hits.map((h) => memoryOf.get(h.chunkId));
  });
  const rank = hits.indexOf(target);
  return rank < 0 ? 0 : 1 / (rank + 1);
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test("parts written apart find the compound: joined against the tenant's vocabulary", async (t) => {
  const plain: number[] = [];
  const joined: number[] = [];
  for (const [i, [, split]] of PAIRS.entries()) {
    plain.push(await reciprocalRank(compoundTenant, split, compoundIds[i] ?? "", { join: 0 }));
    joined.push(await reciprocalRank(compoundTenant, split, compoundIds[i] ?? "", { join: 1 }));
  }
  t.log(
    `MRR parts → compound: plain Snowball ${mean(plain).toFixed(3)}, with compound join ${mean(joined).toFixed(3)}`,
  );
  t.true(mean(joined) > mean(plain));
  // The compound is always found; whether it or a short one-part distractor ranks first varies between
  // runs (MRR 0.69–0.94 seen; an open question in docs/recall.md).
  t.true(mean(joined) >= 0.6);
});

test("a compound in the query finds its parts written apart: split with the dictionary", async (t) => {
  const plain: number[] = [];
  const split: number[] = [];
  for (const [i, [compound]] of PAIRS.entries()) {
    const word = compound.split(" ").find((w) => w.length > 9) ?? compound;
    plain.push(await reciprocalRank(splitTenant, word, splitIds[i] ?? "", { join: 0 }));
    split.push(await reciprocalRank(splitTenant, word, splitIds[i] ?? "", { join: 0, lexicon }));
  }
  t.log(
    `MRR compound → parts: plain Snowball ${mean(plain).toFixed(3)}, with dictionary split ${mean(split).toFixed(3)}`,
  );
  t.true(mean(split) > mean(plain));
});
