/**
 * `npm run bench:growth` (issue 46 "Measure", `growth`; item 5): one workspace grown to 10k / 100k /
 * 300k chunks of the synthetic German corpus (bench/synthetic-corpus.ts: the 240 xquad_de paragraphs
 * first, then recombined sentences of them and of Tatoeba), and at each size the hit@10 of the
 * question's own paragraph for `--questions` xquad_de questions:
 * - through the product's recall, stage by stage (bm25, vector, fused, full), in process;
 * - through the plain hybrid recipe measured in the same run on the same rows and vectors: PostgreSQL
 *   `ts_rank_cd` over the OR of the query's lexemes, top 50, and an exact cosine top 50 over the same
 *   built-in-embedder vectors, fused by RRF (k = 60);
 * - per channel the depth at which the paragraph is found (hit@10/25 of each channel alone), so
 *   candidate depth, fusion and ANN recall can be told apart.
 * Rows go straight into the tables (bench/fill-synthetic-memories.ts), the ANN index is built as the
 * worker would, then recall latency (in process, settled) p50/p95.
 *
 *   npm run bench:growth -- [--sizes 10000,100000,300000] [--questions 250] [--database-url URL]
 *                           [--dump-dir DIR]   (each size's channels as a bench:fusion set)
 *
 * Writes bench/results/growth.json (`--out`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { startEvalCore } from "./eval/start-eval-core.js";
import { insertIndexedEntries } from "./fill-synthetic-memories.js";
import { type RecordedSet, recordQuery } from "./fusion/record-channels.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000,300000" },
    questions: { type: "string", default: "250" },
    "database-url": { type: "string" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
    out: { type: "string", default: "growth" },
    // Where to write each size's recorded channels (bench:fusion's format: a set per size, compared
    // offline with \`npm run bench:fusion -- --from DIR\`).
    "dump-dir": { type: "string" },
    env: { type: "string", multiple: true, default: [] },
  },
});
for (const kv of values.env ?? []) {
  const [key, value] = kv.split("=", 2) as [string, string];
  process.env[key] = value;
}
const SIZES = values.sizes.split(",").map(Number);
const ADMIN_URL =
  values["database-url"] ?? (process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres");
const DEPTH = 50;
const RRF_K = 60;
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const STAGES = {
  bm25: { disableVector: true, disableGraph: true, disableRerank: true },
  vector: { disableFulltext: true, disableGraph: true, disableRerank: true },
  fused: { disableGraph: true, disableRerank: true },
  full: {},
} as const;
type StageName = keyof typeof STAGES;

const dataset = await readEvalDataset(join(values["eval-dir"], "xquad_de"));
const paragraphIndex = new Map(dataset.documents.map((d, i) => [d.id, i]));
const questions = sampleQueries(dataset.queries, Number(values.questions), "growth").map((q) => {
  const relevant = [...q.relevant][0] ?? "";
  return {
    text: q.text,
    paragraph: paragraphIndex.get(relevant) ?? -1,
    id: q.id,
    lang: q.lang,
    relevant: q.relevant,
  };
});
const corpus = await loadSyntheticCorpus(values["eval-dir"]);
if (corpus.originalCount !== dataset.documents.length) throw new Error("corpus and dataset disagree");

const core = await startEvalCore({ databaseUrl: ADMIN_URL, lexiconCache: values["lexicon-cache"] });
const { db, vectors } = core.storage;
const embedder = core.models.embedder;
const { tenantId, headers } = await core.createTenant("growth");
const paragraphMemory: string[] = [];
const chunkOrdinal = new Map<string, number>();

// Exact cosine top-DEPTH per question, kept up to date as rows arrive (the recipe's vector channel
// and the reference for the product's ANN recall).
const queryVectors = await embedder.embed(
  questions.map((q) => q.text),
  "query",
);
const normalise = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return v.map((x) => x * s);
};
const qv = queryVectors.map(normalise);
const exactTop: { ordinal: number; score: number }[][] = questions.map(() => []);
function offerExact(ordinal: number, vector: Float32Array): void {
  const v = normalise(vector);
  for (let q = 0; q < qv.length; q++) {
    const a = qv[q] as Float32Array;
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (v[i] as number);
    const top = exactTop[q] as { ordinal: number; score: number }[];
    if (top.length < 100 || dot > (top.at(-1)?.score ?? -2)) {
      top.push({ ordinal, score: dot });
      top.sort((x, y) => y.score - x.score);
      if (top.length > 100) top.pop();
    }
  }
}

async function fillTo(from: number, to: number): Promise<number> {
  const started = performance.now();
  for (let start = from; start < to; start += 500) {
    const texts = Array.from({ length: Math.min(500, to - start) }, (_, i) => corpus.chunk(start + i));
    const rows = await insertIndexedEntries(db, tenantId, embedder.id, texts, start);
    const embedded = await embedder.embed(texts, "passage");
    rows.forEach((r, i) => {
      chunkOrdinal.set(r.memory_id, start + i);
      if (start + i < corpus.originalCount) paragraphMemory[start + i] = r.memory_id;
      offerExact(start + i, embedded[i] as Float32Array);
    });
    await vectors.upsert(
      tenantId,
      embedder.id,
      rows.map((r, i) => ({
        chunkId: r.id,
        memoryId: r.memory_id,
        vector: embedded[i] ?? new Float32Array(embedder.dim),
        validFrom: r.valid_from,
        validTo: null,
      })),
    );
    if ((start / 500) % 40 === 0) log(`  filled ${start + texts.length}`);
  }
  await db.sql`select bm25_compact(${tenantId})`;
  await db.sql.unsafe("vacuum analyze bm25_term_stats, bm25_stats_delta, chunks, memories");
  await maintainVectorTable(vectors, tenantId, embedder.id);
  await core.bm25Index?.forget(tenantId);
  return performance.now() - started;
}

/** Rank (1-based) of the paragraph among `ordinals`, or Infinity. */
const rankOf = (ordinals: readonly number[], paragraph: number) => {
  const i = ordinals.indexOf(paragraph);
  return i < 0 ? Number.POSITIVE_INFINITY : i + 1;
};
const hitAt = (ranks: readonly number[], k: number) =>
  round(ranks.filter((r) => r <= k).length / ranks.length);

async function recipeFulltext(query: string): Promise<number[]> {
  const rows = await db.withTenant(
    tenantId,
    (tx) =>
      tx<{ memory_id: string }[]>`
      with q as (select nullif(replace(plainto_tsquery('german', ${query})::text, '&', '|'), '')::tsquery as q)
      select c.memory_id from chunks c, q
      where c.tenant_id = ${tenantId} and q.q is not null and c.tsv @@ q.q
      order by ts_rank_cd(c.tsv, q.q) desc limit ${100}`,
  );
  return rows.map((r) => chunkOrdinal.get(r.memory_id) ?? -1);
}

function rrf(lists: readonly (readonly number[])[]): number[] {
  const score = new Map<number, number>();
  for (const list of lists) {
    list.slice(0, DEPTH).forEach((o, i) => {
      score.set(o, (score.get(o) ?? 0) + 1 / (RRF_K + i + 1));
    });
  }
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([o]) => o);
}

async function measure(size: number, fillMs: number) {
  const stageRanks = new Map<StageName, number[]>(Object.keys(STAGES).map((s) => [s as StageName, []]));
  const latency: number[] = [];
  const recipe = { fulltext: [] as number[], vector: [] as number[], fused: [] as number[] };
  const deep = { bm25: [] as number[], vector: [] as number[] };
  const recipeMs: number[] = [];
  for (const [qi, q] of questions.entries()) {
    for (const stage of Object.keys(STAGES) as StageName[]) {
      const started = performance.now();
      const response = await core.clients.recall.recall(
        { query: q.text, k: 10, stages: create(RecallStagesSchema, STAGES[stage]) },
        { headers },
      );
      if (stage === "full") latency.push(performance.now() - started);
      const ordinals = response.hits.map((h) => chunkOrdinal.get(h.memoryId) ?? -1);
      stageRanks.get(stage)?.push(rankOf(ordinals, q.paragraph));
    }
    // Each product channel alone at depth 25 (recall's largest k): is the paragraph a candidate at all?
    for (const stage of ["bm25", "vector"] as const) {
      const response = await core.clients.recall.recall(
        { query: q.text, k: 25, stages: create(RecallStagesSchema, STAGES[stage]) },
        { headers },
      );
      deep[stage].push(
        rankOf(
          response.hits.map((h) => chunkOrdinal.get(h.memoryId) ?? -1),
          q.paragraph,
        ),
      );
    }
    const started = performance.now();
    const fulltext = await recipeFulltext(q.text);
    recipeMs.push(performance.now() - started);
    const exact = (exactTop[qi] ?? []).map((e) => e.ordinal);
    recipe.fulltext.push(rankOf(fulltext, q.paragraph));
    recipe.vector.push(rankOf(exact, q.paragraph));
    recipe.fused.push(rankOf(rrf([fulltext, exact]), q.paragraph));
  }
  const sorted = [...latency].sort((a, b) => a - b);
  const sortedRecipe = [...recipeMs].sort((a, b) => a - b);
  const stages = Object.fromEntries([...stageRanks].map(([s, ranks]) => [s, hitAt(ranks, 10)]));
  const result = {
    chunks: size,
    fillSeconds: round(fillMs / 1000, 1),
    hitAt10: stages,
    channelDepth: {
      bm25: { at10: hitAt(deep.bm25, 10), at25: hitAt(deep.bm25, 25) },
      vector: { at10: hitAt(deep.vector, 10), at25: hitAt(deep.vector, 25) },
    },
    recipe: {
      fulltext: { at10: hitAt(recipe.fulltext, 10), at50: hitAt(recipe.fulltext, 50) },
      exactVector: { at10: hitAt(recipe.vector, 10), at50: hitAt(recipe.vector, 50) },
      fused: hitAt(recipe.fused, 10),
      fulltextMs: {
        p50: round(percentile(sortedRecipe, 50), 1),
        p95: round(percentile(sortedRecipe, 95), 1),
      },
    },
    recallMs: { p50: round(percentile(sorted, 50), 1), p95: round(percentile(sorted, 95), 1) },
  };
  log(JSON.stringify(result));
  return result;
}

/** Records every question's channels at this size as a bench:fusion set (growth-<size>.json). */
async function dumpChannels(size: number, dir: string): Promise<void> {
  const docOf = (memoryId: string) => {
    const ordinal = chunkOrdinal.get(memoryId) ?? -1;
    return ordinal >= 0 && ordinal < corpus.originalCount
      ? (dataset.documents[ordinal]?.id ?? memoryId)
      : `synthetic-${ordinal}`;
  };
  const queries = [];
  for (const q of questions) queries.push(await recordQuery(core, tenantId, q, docOf));
  const set: RecordedSet = {
    dataset: `growth-${size}`,
    embedder: embedder.id,
    reranker: core.models.reranker?.id ?? "none",
    queries,
  };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `growth-${size}.json`), JSON.stringify(set));
}

const results = [];
let filled = 0;
try {
  for (const size of SIZES) {
    log(`filling to ${size}…`);
    const fillMs = await fillTo(filled, size);
    filled = size;
    results.push(await measure(size, fillMs));
    if (values["dump-dir"] !== undefined) await dumpChannels(size, values["dump-dir"]);
  }
} finally {
  await core.stop();
}
await writeBenchResult(values.out, {
  questions: questions.length,
  loadAverage: loadavg().map((x) => round(x, 2)),
  growth: results,
});
