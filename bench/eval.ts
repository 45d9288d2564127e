/**
 * Recall quality per pipeline stage (issue #6 "Evaluation harness"):
 *
 *   npm run eval -- --dataset ../shared/eval/xquad_de [--dataset …] [--limit 300] [--database-url URL]
 *                   [--no-peer] [--out-dir bench/results]
 *
 * Ingests each set's corpus.jsonl through the real ingest path (IngestService.StoreMemory, one tenant per
 * `group`; `text` only unless meta.json says titles are fair), runs every query through the real recall
 * path (RecallService.Recall, k = 10) once per stage combination (RecallStages), and scores recall@1/5/10,
 * MRR@10 and nDCG@10 with latency p50/p95, next to the Orama peer baseline. Writes
 * bench/results/eval-<dataset>.json and prints a table.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
import { ingestEvalDataset, toDocumentIds } from "./eval/ingest-eval-dataset.js";
import { runOramaBaseline } from "./eval/orama-baseline.js";
import { type EvalQuery, readEvalDataset } from "./eval/read-eval-dataset.js";
import { meanMetrics, percentile, type QueryMetrics, queryMetrics } from "./eval/retrieval-metrics.js";
import { type EvalCore, startEvalCore } from "./eval/start-eval-core.js";

/** The stage combinations of the issue, plus the production default (everything on). */
const STAGES = {
  bm25: { disableVector: true, disableGraph: true, disableRerank: true },
  vector: { disableFulltext: true, disableGraph: true, disableRerank: true },
  fused: { disableGraph: true, disableRerank: true },
  "fused+graph": { disableRerank: true },
  "fused+rerank": { disableGraph: true },
  full: {},
} as const;
type StageName = keyof typeof STAGES;

interface StageResult {
  readonly metrics: QueryMetrics;
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  /** Server-side latency as RecallResponse.latency_ms reports it. */
  readonly serverLatencyMs: { readonly p50: number; readonly p95: number };
}

const { values } = parseArgs({
  options: {
    dataset: { type: "string", multiple: true },
    limit: { type: "string" },
    "database-url": { type: "string" },
    "no-peer": { type: "boolean", default: false },
    "out-dir": { type: "string", default: "bench/results" },
    stages: { type: "string" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
  },
});
const datasets = values.dataset ?? [];
if (datasets.length === 0) {
  process.stderr.write(
    "usage: npm run eval -- --dataset <dir> [--dataset <dir>…] [--limit N] [--database-url URL]\n",
  );
  process.exit(2);
}
const stageNames = (values.stages?.split(",") ?? Object.keys(STAGES)) as StageName[];
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);

async function evaluate(core: EvalCore, dir: string) {
  const dataset = await readEvalDataset(resolve(dir));
  const queries: EvalQuery[] = dataset.queries.slice(0, limit);
  process.stderr.write(`${dataset.name}: ingesting ${dataset.documents.length} documents…\n`);
  const ingested = await ingestEvalDataset(core, dataset);
  process.stderr.write(
    `${dataset.name}: ${ingested.chunks} chunks in ${Math.round(ingested.ms)} ms; ${queries.length} queries…\n`,
  );
  const perStage = new Map<StageName, { metrics: QueryMetrics[]; client: number[]; server: number[] }>(
    stageNames.map((s) => [s, { metrics: [], client: [], server: [] }]),
  );
  let reranker = "none";
  for (const query of queries) {
    const headers = ingested.tenants.get(query.group)?.headers ?? {};
    for (const stage of stageNames) {
      const started = performance.now();
      const response = await core.clients.recall.recall(
        { query: query.text, k: 10, stages: create(RecallStagesSchema, STAGES[stage]) },
        { headers },
      );
      const elapsed = performance.now() - started;
      if (response.reranker !== "none") reranker = response.reranker;
      const ranked = toDocumentIds(
        response.hits.map((h) => h.memoryId),
        ingested.docsOf,
        query.relevant,
      );
      const bucket = perStage.get(stage);
      bucket?.metrics.push(queryMetrics(ranked, query.relevant));
      bucket?.client.push(elapsed);
      bucket?.server.push(response.latencyMs);
    }
  }
  const stages: Record<string, StageResult> = {};
  for (const [name, bucket] of perStage) {
    stages[name] = {
      metrics: meanMetrics(bucket.metrics),
      latencyMs: { p50: percentile(bucket.client, 50), p95: percentile(bucket.client, 95) },
      serverLatencyMs: { p50: percentile(bucket.server, 50), p95: percentile(bucket.server, 95) },
    };
  }
  const peers: Record<string, StageResult> = {};
  if (!values["no-peer"]) {
    for (const mode of ["fulltext", "hybrid"] as const) {
      const runs = await runOramaBaseline(dataset.documents, queries, core.models.embedder, mode);
      const metrics = queries.map((q) => queryMetrics(runs.get(q.id)?.ranked ?? [], q.relevant));
      const ms = queries.map((q) => runs.get(q.id)?.ms ?? 0);
      const latency = { p50: percentile(ms, 50), p95: percentile(ms, 95) };
      peers[`orama-${mode}`] = {
        metrics: meanMetrics(metrics),
        latencyMs: latency,
        serverLatencyMs: latency,
      };
    }
  }
  return {
    dataset: dataset.name,
    documents: dataset.documents.length,
    queries: queries.length,
    titlesIndexed: dataset.titlesFair,
    ingest: { chunks: ingested.chunks, ms: Math.round(ingested.ms) },
    embedder: core.models.embedder.id,
    reranker,
    lexicon: core.lexicon.headwordCount,
    loadAverage: loadavg(),
    stages,
    peers,
  };
}

function printTable(result: Awaited<ReturnType<typeof evaluate>>) {
  const rows = [...Object.entries(result.stages), ...Object.entries(result.peers)];
  const f = (x: number) => x.toFixed(3);
  process.stdout.write(
    `\n${result.dataset} (${result.documents} docs, ${result.queries} queries; embedder ${result.embedder}, reranker ${result.reranker})\n`,
  );
  process.stdout.write("stage           nDCG@10  R@1    R@5    R@10   MRR@10  p50 ms  p95 ms\n");
  for (const [name, r] of rows) {
    const m = r.metrics;
    process.stdout.write(
      `${name.padEnd(15)} ${f(m.ndcg10)}   ${f(m.recall1)}  ${f(m.recall5)}  ${f(m.recall10)}  ${f(m.mrr10)}   ${r.latencyMs.p50.toFixed(1).padStart(6)}  ${r.latencyMs.p95.toFixed(1).padStart(6)}\n`,
    );
  }
}

const core = await startEvalCore({
  databaseUrl: values["database-url"],
  lexiconCache: values["lexicon-cache"],
});
try {
  await mkdir(values["out-dir"], { recursive: true });
  for (const dir of datasets) {
    const result = await evaluate(core, dir);
    printTable(result);
    await writeFile(
      join(values["out-dir"], `eval-${result.dataset}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
  }
} finally {
  await core.stop();
}
