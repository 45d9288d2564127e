/**
 * `npx tsx bench/bm25-growth-study.ts [--sizes 100000,300000] [--database-url URL] [--attach DB-URL]
 * [--no-recipe]` (issue 46 item 5, ADR 0590): why the product's BM25 channel falls below the recipe's `ts_rank_cd` (OR of the query's
 * lexemes) as the synthetic corpus of bench:growth grows. Fills one workspace with the corpus' rows and
 * tsvectors only (no vectors: only full text is studied), asks the 250 xquad_de questions through the
 * product's full-text channel (searchFulltext, the in-process index) and the recipe's SQL, then
 * rescores every chunk holding a query lexeme in memory from the chunks' tsvectors, so each ingredient
 * of the two scorers — the terms searched, idf, saturation (k1), length normalisation (b) — is swapped
 * one at a time. The model's "product" row must equal the live channel, its "recipe" row the live
 * `ts_rank_cd`. `--attach` re-reads a workspace an earlier run filled (its database left behind); the
 * live row is then the current code's. Prints; writes nothing.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { lengthNormalisationB } from "../core/recall/bm25/bm25-parameters.js";
import { searchFulltext } from "../core/recall/search-fulltext.js";
import { createDatabase } from "../core/store/database.js";
import { withTenantSnapshot } from "../core/store/with-tenant-snapshot.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { startEvalCore } from "./eval/start-eval-core.js";
import { insertIndexedEntries } from "./fill-synthetic-memories.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "100000,300000" },
    questions: { type: "string", default: "250" },
    "database-url": { type: "string" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
    // A database an earlier run left filled (killed before its clean-up): study its one tenant as it is.
    attach: { type: "string" },
    // Skip the recipe's live ts_rank_cd queries (the slow part at 300k); the model's recipe row stays.
    "no-recipe": { type: "boolean", default: false },
  },
});
const log = (line: string) => process.stderr.write(`${line}\n`);
const dataset = await readEvalDataset(join(values["eval-dir"], "xquad_de"));
const paragraphIndex = new Map(dataset.documents.map((d, i) => [d.id, i]));
const questions = sampleQueries(dataset.queries, Number(values.questions), "growth").map((q) => ({
  text: q.text,
  paragraph: paragraphIndex.get([...q.relevant][0] ?? "") ?? -1,
}));
const corpus = await loadSyntheticCorpus(values["eval-dir"]);
const core = await startEvalCore({
  databaseUrl: values["database-url"],
  lexiconCache: values["lexicon-cache"],
  reranker: "none",
  worker: false,
});
const attached = values.attach === undefined ? undefined : createDatabase({ url: values.attach });
const db = attached ?? core.storage.db;
const ordinalOf = new Map<string, number>();
const chunkIdOf: string[] = [];
let tenantId: string;
if (attached !== undefined) {
  // Titles are "Notiz <ordinal + 1>" (insertIndexedEntries numbers from 1).
  const rows = await attached.sql<{ tenant_id: string; id: string; n: number }[]>`
    select c.tenant_id, c.id, substring(m.title from 7)::int - 1 as n
    from chunks c join memories m on m.id = c.memory_id where c.valid_to is null`;
  tenantId = rows[0]?.tenant_id ?? "";
  for (const r of rows) {
    ordinalOf.set(r.id, r.n);
    chunkIdOf[r.n] = r.id;
  }
} else tenantId = (await core.createTenant("bm25-study")).tenantId;

async function fillTo(from: number, to: number) {
  for (let start = from; start < to; start += 1000) {
    const texts = Array.from({ length: Math.min(1000, to - start) }, (_, i) => corpus.chunk(start + i));
    const rows = await insertIndexedEntries(db, tenantId, core.models.embedder.id, texts, start);
    rows.forEach((r, i) => {
      ordinalOf.set(r.id, start + i);
      chunkIdOf[start + i] = r.id;
    });
    if ((start / 1000) % 50 === 0) log(`  filled ${start + texts.length}`);
  }
  await db.sql`select bm25_compact(${tenantId})`;
  await db.sql.unsafe("vacuum analyze bm25_term_stats, bm25_stats_delta, chunks, memories");
  await core.bm25Index?.forget(tenantId);
}

interface QueryRecord {
  paragraph: number;
  /** The product's terms: lexeme, planned weight (query weight × idf). */
  terms: { term: string; weight: number }[];
  /** The recipe's lexemes (plainto_tsquery). */
  recipeTerms: string[];
  productRank: number;
  recipeRank: number;
}

const rankIn = (ordinals: readonly number[], paragraph: number) => {
  const i = ordinals.indexOf(paragraph);
  return i < 0 ? Number.POSITIVE_INFINITY : i + 1;
};

async function ask(): Promise<QueryRecord[]> {
  const records: QueryRecord[] = [];
  for (const q of questions) {
    const fulltext = await withTenantSnapshot(db, tenantId, (tx) =>
      searchFulltext(tx, tenantId, {
        query: q.text,
        depth: 100,
        lexicon: core.lexicon,
        thesaurus: core.models.thesaurus,
        index: core.bm25Index,
      }),
    );
    const recipe = await db.withTenant(tenantId, async (tx) => {
      if (values["no-recipe"]) {
        const lexemes = await tx<{ l: string }[]>`
          select distinct u.lexeme as l from unnest(to_tsvector('german', ${q.text})) u`;
        return { lexemes: lexemes.map((r) => r.l), ids: [] as string[] };
      }
      const lexemes = await tx<{ l: string }[]>`
        select distinct u.lexeme as l from unnest(to_tsvector('german', ${q.text})) u`;
      const rows = await tx<{ id: string }[]>`
        with q as (select nullif(replace(plainto_tsquery('german', ${q.text})::text, '&', '|'), '')::tsquery as q)
        select c.id from chunks c, q
        where c.tenant_id = ${tenantId} and q.q is not null and c.tsv @@ q.q
        order by ts_rank_cd(c.tsv, q.q) desc limit 100`;
      return { lexemes: lexemes.map((r) => r.l), ids: rows.map((r) => r.id) };
    });
    records.push({
      paragraph: q.paragraph,
      terms: fulltext.terms.map((t) => ({ term: t.term, weight: t.weight })),
      recipeTerms: recipe.lexemes,
      productRank: rankIn(
        fulltext.hits.map((h) => ordinalOf.get(h.chunkId) ?? -1),
        q.paragraph,
      ),
      recipeRank: rankIn(
        recipe.ids.map((id) => ordinalOf.get(id) ?? -1),
        q.paragraph,
      ),
    });
  }
  return records;
}

/** Postings of the given lexemes (ordinal, tf) and every chunk's length, read from the tsvectors. */
async function readPostings(size: number, lexemes: readonly string[]) {
  const postings = new Map<string, { ordinal: number; tf: number }[]>(lexemes.map((l) => [l, []]));
  const length = new Float64Array(size);
  await db.withTenant(tenantId, async (tx) => {
    const lengths = await tx<{ id: string; dl: number }[]>`
      select c.id, (select coalesce(sum(coalesce(cardinality(a.positions), 1)), 0) from unnest(c.tsv) a)::int as dl
      from chunks c where c.tenant_id = ${tenantId}`;
    for (const r of lengths) length[ordinalOf.get(r.id) ?? -1] = r.dl;
    // A hash join on the query lexemes: \`= any(array)\` compares every lexeme with all of them.
    const rows = await tx<{ id: string; lexeme: string; tf: number }[]>`
      select c.id, u.lexeme, coalesce(cardinality(u.positions), 1)::int as tf
      from chunks c cross join lateral unnest(c.tsv) u
      join unnest(${tx.array([...lexemes])}::text[]) q(l) on q.l = u.lexeme
      where c.tenant_id = ${tenantId}`;
    for (const r of rows) postings.get(r.lexeme)?.push({ ordinal: ordinalOf.get(r.id) ?? -1, tf: r.tf });
  });
  return { postings, length };
}

interface Variant {
  readonly name: string;
  /** recipe: the recipe's lexemes at query weight 1; product: the planned terms' query weights. */
  readonly terms: "product" | "recipe" | "product-own";
  /** idf: BM25's; none: 1; sqrt: its square root. */
  readonly idf: "bm25" | "none" | "sqrt";
  /** Term-frequency part: BM25 with k1, b; or linear (ts_rank_cd's occurrence count). */
  readonly k1: number;
  readonly b: number;
  readonly linear?: boolean;
}

function evaluate(
  records: readonly QueryRecord[],
  size: number,
  data: Awaited<ReturnType<typeof readPostings>>,
) {
  const { postings, length } = data;
  let total = 0;
  for (let i = 0; i < size; i++) total += length[i] ?? 0;
  const avgdl = total / size;
  const idfOf = (df: number) => Math.log(1 + (size - df + 0.5) / (df + 0.5));
  return (variant: Variant) => {
    const ranks: number[] = [];
    for (const r of records) {
      const plannedTerms =
        variant.terms === "recipe"
          ? r.recipeTerms.map((term) => ({ term, q: 1 }))
          : r.terms
              .map((t) => {
                const df = postings.get(t.term)?.length ?? 0;
                return { term: t.term, q: df > 0 ? t.weight / idfOf(df) : 0 };
              })
              .filter((t) => variant.terms === "product" || t.q >= 0.999);
      const scores = new Map<number, number>();
      for (const { term, q } of plannedTerms) {
        const list = postings.get(term) ?? [];
        if (list.length === 0) continue;
        const idf =
          variant.idf === "none"
            ? 1
            : variant.idf === "sqrt"
              ? Math.sqrt(idfOf(list.length))
              : idfOf(list.length);
        const b = variant.b < 0 ? lengthNormalisationB(size) : variant.b;
        for (const { ordinal, tf } of list) {
          const norm = 1 - b + (b * (length[ordinal] ?? 0)) / avgdl;
          const part = variant.linear ? tf / norm : ((variant.k1 + 1) * tf) / (tf + variant.k1 * norm);
          scores.set(ordinal, (scores.get(ordinal) ?? 0) + q * idf * part);
        }
      }
      const mine = scores.get(r.paragraph);
      if (mine === undefined) {
        ranks.push(Number.POSITIVE_INFINITY);
        continue;
      }
      // Ties at the expected rank: live ties fall in chunk id (product) or arbitrary (recipe) order.
      let better = 0;
      let tied = 0;
      for (const [o, s] of scores) {
        if (s > mine + 1e-9) better++;
        else if (s >= mine - 1e-9 && o !== r.paragraph) tied++;
      }
      ranks.push(better + 1 + tied / 2);
    }
    return ranks;
  };
}

const hitAt = (ranks: readonly number[], k: number) =>
  (ranks.filter((r) => r <= k).length / ranks.length).toFixed(3);

const VARIANTS: Variant[] = [
  { name: "product (BM25 k1 1.2 b 0.3, planned terms)", terms: "product", idf: "bm25", k1: 1.2, b: 0.3 },
  {
    name: "recipe model (ts_rank_cd OR: occurrences)",
    terms: "recipe",
    idf: "none",
    k1: 0,
    b: 0,
    linear: true,
  },
  { name: "planned terms, occurrences", terms: "product", idf: "none", k1: 0, b: 0, linear: true },
  { name: "recipe terms, BM25", terms: "recipe", idf: "bm25", k1: 1.2, b: 0.3 },
  { name: "own words only, BM25", terms: "product-own", idf: "bm25", k1: 1.2, b: 0.3 },
  { name: "BM25 without idf", terms: "product", idf: "none", k1: 1.2, b: 0.3 },
  { name: "BM25 sqrt idf", terms: "product", idf: "sqrt", k1: 1.2, b: 0.3 },
  { name: "BM25 b 0", terms: "product", idf: "bm25", k1: 1.2, b: 0 },
  { name: "BM25 b 0.1", terms: "product", idf: "bm25", k1: 1.2, b: 0.1 },
  { name: "BM25 b 0.2", terms: "product", idf: "bm25", k1: 1.2, b: 0.2 },
  { name: "BM25 k1 2", terms: "product", idf: "bm25", k1: 2, b: 0.3 },
  { name: "BM25 k1 3", terms: "product", idf: "bm25", k1: 3, b: 0.3 },
  { name: "BM25 k1 5", terms: "product", idf: "bm25", k1: 5, b: 0.3 },
  { name: "BM25 linear tf (k1 ∞), b 0.3", terms: "product", idf: "bm25", k1: 0, b: 0.3, linear: true },
  { name: "BM25 linear tf, b 0", terms: "product", idf: "bm25", k1: 0, b: 0, linear: true },
  { name: "BM25 k1 3 b 0.2", terms: "product", idf: "bm25", k1: 3, b: 0.2 },
  { name: "BM25 k1 2 b 0.1", terms: "product", idf: "bm25", k1: 2, b: 0.1 },
  { name: "sqrt idf, k1 3 b 0.3", terms: "product", idf: "sqrt", k1: 3, b: 0.3 },
  { name: "BM25 b 0.05", terms: "product", idf: "bm25", k1: 1.2, b: 0.05 },
  { name: "BM25 b = lengthNormalisationB(N) (taken)", terms: "product", idf: "bm25", k1: 1.2, b: -1 },
];

let filled = 0;
try {
  for (const size of attached !== undefined ? [ordinalOf.size] : values.sizes.split(",").map(Number)) {
    log(`filling to ${size}…`);
    const started = performance.now();
    if (attached === undefined) await fillTo(filled, size);
    log(`  filled in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    filled = size;
    const records = await ask();
    log(`  asked in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const lexemes = [...new Set(records.flatMap((r) => [...r.terms.map((t) => t.term), ...r.recipeTerms]))];
    const data = await readPostings(size, lexemes);
    const run = evaluate(records, size, data);
    const termCount = records.reduce((a, r) => a + r.terms.length, 0) / records.length;
    const recipeCount = records.reduce((a, r) => a + r.recipeTerms.length, 0) / records.length;
    console.log(
      `\n## ${size} chunks  (terms per query: planned ${termCount.toFixed(1)}, recipe ${recipeCount.toFixed(1)})`,
    );
    console.log(
      `live product BM25 @10 ${hitAt(
        records.map((r) => r.productRank),
        10,
      )} @25 ${hitAt(
        records.map((r) => r.productRank),
        25,
      )}; live ts_rank_cd @10 ${hitAt(
        records.map((r) => r.recipeRank),
        10,
      )} @50 ${hitAt(
        records.map((r) => r.recipeRank),
        50,
      )}`,
    );
    console.log("| variant | @10 | @25 | @100 |\n| --- | --- | --- | --- |");
    for (const v of VARIANTS) {
      const ranks = run(v);
      console.log(`| ${v.name} | ${hitAt(ranks, 10)} | ${hitAt(ranks, 25)} | ${hitAt(ranks, 100)} |`);
    }
  }
} finally {
  await attached?.close();
  await core.stop();
}
