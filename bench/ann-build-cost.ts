/**
 * `npm run bench:ann-build -- [--rows 10000] [--settings 300:20,150:20,100:20]` (issue #23): what
 * building the vector column's HNSW-SQ index costs (wall time and CPU of all threads) for each
 * efConstruction:m setting, and how much of an exact search's top 50 and top 10 the built index keeps
 * under the store's search settings (ef 200, index only). Built-in-embedder vectors of the synthetic
 * corpus; 100 xquad_de and 100 covidqa_en questions. Each setting gets a table of its own with the same
 * vectors. Writes bench/results/ann-build-cost.json.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Index } from "@lancedb/lancedb";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { padToStoredDim } from "../core/models/pad-to-stored-dim.js";
import { openVectorStore } from "../core/vectors/lancedb-vector-store.js";
import { EF_CONSTRUCTION } from "../core/vectors/maintain-vector-table.js";
import { currentVectorRows } from "./current-vector-rows.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "10000" },
    settings: { type: "string", default: `300:20,${EF_CONSTRUCTION}:20,100:20,${EF_CONSTRUCTION}:16` },
    "eval-dir": { type: "string", default: "../shared/eval" },
    out: { type: "string", default: "ann-build-cost" },
  },
});
const ROWS = Number(values.rows);
const K = 50;
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

const models = await loadModels(
  loadConfig({ LOG_LEVEL: "warn", DATABASE_URL: "postgres://unused" }),
  createLogger("warn"),
);
const embedder = models.embedder;
const corpus = await loadSyntheticCorpus(values["eval-dir"]);
const texts = Array.from({ length: ROWS }, (_, i) => corpus.chunk(i));
const vectors: Float32Array[] = [];
for (let i = 0; i < texts.length; i += 256)
  vectors.push(...(await embedder.embed(texts.slice(i, i + 256), "passage")));
const questions: string[] = [];
for (const set of ["xquad_de", "covidqa_en"])
  questions.push(
    ...(await readEvalDataset(join(values["eval-dir"], set))).queries.slice(0, 100).map((q) => q.text),
  );
const queryVectors = await embedder.embed(questions, "query");

const results = [];
for (const setting of values.settings.split(",")) {
  const [efConstruction, m] = setting.split(":").map(Number) as [number, number];
  const dir = await mkdtemp(join(tmpdir(), "bench-ann-build-"));
  const store = await openVectorStore(dir);
  try {
    const tenant = randomUUID();
    for (let i = 0; i < ROWS; i += 1_000)
      await store.upsert(tenant, embedder.id, currentVectorRows(vectors.slice(i, i + 1_000)), {
        readBack: false,
      });
    const table = await store.openTable(tenant, embedder.id);
    if (!table) throw new Error("no table");
    await table.optimize();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await table.createIndex("vector", {
      config: Index.hnswSq({ distanceType: "cosine", efConstruction, m }),
    });
    const buildWallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const search = async (vector: Float32Array, exact: boolean) => {
      let query = table.vectorSearch(Array.from(padToStoredDim(vector))).distanceType("cosine");
      query = exact ? query.bypassVectorIndex() : query.ef(200).fastSearch();
      const rows = (await query
        .where("valid_to IS NULL")
        .select(["chunk_id", "_distance"])
        .limit(K)
        .toArray()) as { chunk_id: string }[];
      return rows.map((r) => r.chunk_id);
    };
    let kept50 = 0;
    let kept10 = 0;
    for (const vector of queryVectors) {
      const exact = await search(vector, true);
      const found = await search(vector, false);
      const top50 = new Set(exact);
      const top10 = new Set(exact.slice(0, 10));
      kept50 += found.filter((id) => top50.has(id)).length / Math.max(1, top50.size);
      kept10 += found.slice(0, 10).filter((id) => top10.has(id)).length / Math.max(1, top10.size);
    }
    const row = {
      efConstruction,
      m,
      buildWallMs: Math.round(buildWallMs),
      buildCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      recallAt50VsExact: round(kept50 / queryVectors.length),
      recallAt10VsExact: round(kept10 / queryVectors.length),
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    results.push(row);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
writeBenchResult(values.out, {
  what: "HNSW-SQ index build over built-in-embedder vectors, and its top-k agreement with exact search",
  rows: ROWS,
  queries: queryVectors.length,
  embedder: embedder.id,
  current: EF_CONSTRUCTION,
  results,
});
await models.close();
process.exit(0);
