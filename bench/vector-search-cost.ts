/**
 * `npx tsx bench/vector-search-cost.ts [--rows 10000] [--queries 200]` (issue 15, load): what one
 * vector-channel search costs in CPU (all threads of the process, LanceDB's included) and time on an
 * indexed table, for variants of the search settings, and how many of an exact search's top 50 each
 * variant keeps. Built-in-embedder vectors of the synthetic corpus, xquad_de questions, k = 50 (the
 * recall's channel depth), one search at a time. Writes bench/results/vector-search-cost.json.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as lancedb from "@lancedb/lancedb";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { padToStoredDim } from "../core/models/pad-to-stored-dim.js";
import { openVectorStore } from "../core/vectors/lancedb-vector-store.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { currentVectorRows } from "./current-vector-rows.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "10000" },
    queries: { type: "string", default: "200" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    out: { type: "string", default: "vector-search-cost" },
  },
});
const ROWS = Number(values.rows);
const K = 50;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

interface Variant {
  readonly name: string;
  readonly ef?: number;
  readonly refine?: number;
  readonly where?: string;
  readonly exact?: boolean;
  /** Searched through a connection that never re-checks the table's version (the store checks every read). */
  readonly noConsistencyCheck?: boolean;
  /** Index only (`fastSearch`): what the store runs on a fully indexed table (ADR 0300). */
  readonly fast?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: "exact (flat, no index)", exact: true, where: "valid_to IS NULL" },
  { name: "ef 200, refine 4, prefilter valid_to", ef: 200, refine: 4, where: "valid_to IS NULL" },
  { name: "ef 200, refine 4, no filter", ef: 200, refine: 4 },
  {
    name: "ef 200, refine 2, prefilter, no version check per read",
    ef: 200,
    refine: 2,
    where: "valid_to IS NULL",
    noConsistencyCheck: true,
  },
  { name: "ef 200, no refine, prefilter", ef: 200, where: "valid_to IS NULL" },
  {
    name: "ef 200, refine 1 (exact distances of the k found), prefilter",
    ef: 200,
    refine: 1,
    where: "valid_to IS NULL",
  },
  { name: "ef 100, refine 2, prefilter", ef: 100, refine: 2, where: "valid_to IS NULL" },
  {
    name: "ef 200, refine 2, prefilter (a partly indexed table)",
    ef: 200,
    refine: 2,
    where: "valid_to IS NULL",
  },
  {
    name: "ef 200, index only, no refine, prefilter (a fully indexed table, ADR 0300)",
    ef: 200,
    where: "valid_to IS NULL",
    fast: true,
  },
];

const config = loadConfig({ LOG_LEVEL: "warn", DATABASE_URL: "postgres://unused" });
const models = await loadModels(config, createLogger("warn"));
const embedder = models.embedder;
const corpus = await loadSyntheticCorpus(values["eval-dir"]);
const questions = (await readEvalDataset(join(values["eval-dir"], "xquad_de"))).queries
  .map((q) => q.text)
  .slice(0, Number(values.queries));
const dir = await mkdtemp(join(tmpdir(), "bench-vector-cost-"));
const store = await openVectorStore(dir);
try {
  const tenant = randomUUID();
  /** Embeds corpus chunks start … start + count − 1 and appends them to the tenant's table. */
  const append = async (start: number, count: number) => {
    const texts = Array.from({ length: count }, (_, i) => corpus.chunk(start + i));
    const vectors = await embedder.embed(texts, "passage");
    await store.upsert(tenant, embedder.id, currentVectorRows(vectors), { readBack: false });
  };
  for (let start = 0; start < ROWS; start += 500) await append(start, Math.min(500, ROWS - start));
  const maintained = await maintainVectorTable(store, tenant, embedder.id);
  process.stdout.write(`table: ${JSON.stringify(maintained)}\n`);
  const table = await store.openTable(tenant, embedder.id);
  if (!table) throw new Error("no table");
  const lazy = await (await lancedb.connect(dir)).openTable(table.name);
  const queryVectors = await embedder.embed(questions, "query");

  const search = async (variant: Variant, vector: Float32Array) => {
    let query = (variant.noConsistencyCheck ? lazy : table)
      .vectorSearch(Array.from(padToStoredDim(vector)))
      .distanceType("cosine");
    if (variant.exact) query = query.bypassVectorIndex();
    if (variant.ef !== undefined) query = query.ef(variant.ef);
    if (variant.refine !== undefined) query = query.refineFactor(variant.refine);
    if (variant.where !== undefined) query = query.where(variant.where);
    if (variant.fast) query = query.fastSearch();
    const rows = (await query.select(["chunk_id", "_distance"]).limit(K).toArray()) as { chunk_id: string }[];
    return rows.map((r) => r.chunk_id);
  };

  const exactTop = new Map<number, Set<string>>();
  const exactTop10 = new Map<number, Set<string>>();
  const results = [];
  for (const variant of VARIANTS) {
    // Warm-up, then the measured pass.
    for (const vector of queryVectors.slice(0, 10)) await search(variant, vector);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const times: number[] = [];
    let kept = 0;
    let kept10 = 0;
    for (const [i, vector] of queryVectors.entries()) {
      const t0 = performance.now();
      const ids = await search(variant, vector);
      times.push(performance.now() - t0);
      if (variant.exact) {
        exactTop.set(i, new Set(ids));
        exactTop10.set(i, new Set(ids.slice(0, 10)));
      }
      const exact = exactTop.get(i);
      kept += exact === undefined ? 0 : ids.filter((id) => exact.has(id)).length / Math.max(1, exact.size);
      // The share of the exact top 10 among the variant's first 10: what reaches the fused ranking's top.
      const exact10 = exactTop10.get(i);
      kept10 +=
        exact10 === undefined
          ? 0
          : ids.slice(0, 10).filter((id) => exact10.has(id)).length / Math.max(1, exact10.size);
    }
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    times.sort((a, b) => a - b);
    const row = {
      variant: variant.name,
      cpuMsPerSearch: round((cpu.user + cpu.system) / 1000 / queryVectors.length),
      wallMsPerSearch: round(wallMs / queryVectors.length),
      p95Ms: round(times[Math.floor(times.length * 0.95)] ?? 0),
      recallAt50VsExact: round(kept / queryVectors.length, 3),
      recallAt10VsExact: round(kept10 / queryVectors.length, 3),
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    results.push(row);
  }
  // n searches at a time: as single LanceDB queries in parallel, and through the store, which runs
  // concurrent searches of one table as one multi-vector query (core/vectors/search-coalesced.ts).
  const concurrent = async (name: string, n: number, one: (vector: Float32Array) => Promise<unknown>) => {
    for (const vector of queryVectors.slice(0, 10)) await one(vector);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < queryVectors.length; i += n) await Promise.all(queryVectors.slice(i, i + n).map(one));
    const cpu = process.cpuUsage(cpuBefore);
    const row = {
      variant: name,
      cpuMsPerSearch: round((cpu.user + cpu.system) / 1000 / queryVectors.length),
      wallMsPerSearch: round((performance.now() - started) / queryVectors.length),
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    results.push(row);
  };
  for (const n of [10, 50]) {
    await concurrent(`${n} at a time, single queries (ef 200, refine 2, prefilter)`, n, (vector) =>
      search({ name: "", ef: 200, refine: 2, where: "valid_to IS NULL" }, vector),
    );
    await concurrent(
      `${n} at a time through the store (coalesced into multi-vector queries, fully indexed)`,
      n,
      (vector) => store.search(tenant, embedder.id, vector, K),
    );
  }
  // Ten rows appended after the index: the store's exact re-ranking path (a table between writes and
  // the worker's next maintenance).
  await append(ROWS, 10);
  await concurrent(
    "50 at a time through the store (coalesced, 10 rows not yet indexed: exact re-ranking)",
    50,
    (vector) => store.search(tenant, embedder.id, vector, K),
  );
  writeBenchResult(values.out, {
    what: "one vector-channel search (k = 50) on an HNSW-SQ-indexed LanceDB table, CPU of all threads",
    rows: ROWS,
    queries: queryVectors.length,
    embedder: embedder.id,
    table: maintained,
    results,
  });
} finally {
  store.close();
  await models.close();
  await rm(dir, { recursive: true, force: true });
}
