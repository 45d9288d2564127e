/**
 * Recall quality per pipeline stage (issue #6 "Evaluation harness", issue #22 item 2):
 *
 *   npm run eval -- --all [--eval-dir ../shared/eval] [--limit 200] [--category c1,c2] [--seed eval]
 *   npm run eval -- --dataset ../shared/eval/xquad_de [--dataset …] [--limit 300] [--peer]
 *                   [--database-url URL] [--out-dir bench/results] [--stages bm25,vector,…]
 *                   [--per-query DIR]   (one JSON line per query and stage: nDCG@10, the top documents)
 *
 * Ingests each set's corpus.jsonl through the real ingest path (IngestService.StoreMemories, one tenant per
 * `group`; `text` only unless meta.json says titles are fair), runs every query through the real recall
 * path (RecallService.Recall, k = 10) once per stage combination (RecallStages), and scores recall@1/5/10,
 * MRR@10 and nDCG@10 with latency p50/p95. `--limit N` takes a deterministic sample spread over groups and
 * languages (bench/eval/sample-queries.ts), not the first N; `--category` keeps queries of those
 * categories only. `--all` runs every set under --eval-dir and prints one table of stages × sets with
 * full − best single channel per set and its minimum. The Orama peer baseline runs with `--peer` (and,
 * as before, by default for single sets unless `--no-peer`). Writes bench/results/eval-<dataset>.json,
 * and eval-all.json for more than one set. `EVAL_ANN_MIN_ROWS=N` builds each set's ANN index from N
 * rows instead of 1,200 (1: every set searched as a large tenant is, on the index; ADR 0300).
 * `--via conversations` ingests the corpus through IngestService.StoreConversation (what POST
 * /api/v1/conversations calls) instead: each document one turn (`speaker`, else "User"; `valid_from`
 * its time), sessions as `session` names them, else one per day of `valid_from`, else of 20 documents; one conversation per group; a hit
 * counts as the document of the turn it shows (docs/ingest.md "Conversations"). `--prf` turns recall's
 * pseudo-relevance feedback on (RECALL_PRF, ADR 0570).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
import {
  type EvalIngestVia,
  ingestEvalDataset,
  toDocumentIds,
  toTurnDocumentIds,
} from "./eval/ingest-eval-dataset.js";
import { listEvalSets } from "./eval/list-eval-sets.js";
import { runOramaBaseline } from "./eval/orama-baseline.js";
import { type EvalQuery, readEvalDataset } from "./eval/read-eval-dataset.js";
import { meanMetrics, percentile, type QueryMetrics, queryMetrics } from "./eval/retrieval-metrics.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { formatStageTable, type SetScores } from "./eval/stage-table.js";
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
/** Run unless --stages says otherwise; fused+rerank only on request (full = it plus graph). */
const DEFAULT_STAGES: readonly StageName[] = ["bm25", "vector", "fused", "fused+graph", "full"];

interface StageResult {
  readonly metrics: QueryMetrics;
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  /** Server-side latency as RecallResponse.latency_ms reports it. */
  readonly serverLatencyMs: { readonly p50: number; readonly p95: number };
}

const { values } = parseArgs({
  options: {
    dataset: { type: "string", multiple: true },
    all: { type: "boolean", default: false },
    "eval-dir": { type: "string", default: "../shared/eval" },
    limit: { type: "string" },
    category: { type: "string" },
    seed: { type: "string", default: "eval" },
    "database-url": { type: "string" },
    peer: { type: "boolean", default: false },
    "no-peer": { type: "boolean", default: false },
    "out-dir": { type: "string", default: "bench/results" },
    stages: { type: "string" },
    via: { type: "string", default: "entries" },
    /** A directory: per set, one JSON line per query and stage (nDCG@10, the top documents). */
    "per-query": { type: "string" },
    prf: { type: "boolean" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
  },
});

const datasets = [
  ...(values.dataset ?? []),
  ...(values.all ? await listEvalSets(resolve(values["eval-dir"])) : []),
];
if (datasets.length === 0) {
  process.stderr.write(
    "usage: npm run eval -- (--all [--eval-dir DIR] | --dataset <dir> [--dataset <dir>…]) [--limit N] [--category C[,C…]] [--database-url URL]\n",
  );
  process.exit(2);
}
const stageNames = (values.stages?.split(",") ?? DEFAULT_STAGES) as StageName[];
const unknownStage = stageNames.find((s) => !(s in STAGES));
if (unknownStage !== undefined) {
  process.stderr.write(`unknown stage ${unknownStage}; known: ${Object.keys(STAGES).join(", ")}\n`);
  process.exit(2);
}
if (values.via !== "entries" && values.via !== "conversations") {
  process.stderr.write(`--via takes entries or conversations, not ${values.via}\n`);
  process.exit(2);
}
const via: EvalIngestVia = values.via;
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
const categories = values.category === undefined ? undefined : new Set(values.category.split(","));
const runPeers = values.peer || (!values.all && !values["no-peer"]);

async function evaluate(core: EvalCore, dir: string) {
  const dataset = await readEvalDataset(resolve(dir));
  const eligible = dataset.queries.filter((q) => categories === undefined || categories.has(q.category));
  const queries: EvalQuery[] = sampleQueries(eligible, limit, values.seed);
  if (queries.length === 0) {
    process.stderr.write(`${dataset.name}: no queries${categories ? " of those categories" : ""}; skipped\n`);
    return undefined;
  }
  process.stderr.write(`${dataset.name}: ingesting ${dataset.documents.length} documents…\n`);
  const ingested = await ingestEvalDataset(core, dataset, via);
  process.stderr.write(
    `${dataset.name}: ${ingested.chunks} chunks in ${Math.round(ingested.ms)} ms; ${queries.length} queries…\n`,
  );
  const perStage = new Map<StageName, { metrics: QueryMetrics[]; client: number[]; server: number[] }>(
    stageNames.map((s) => [s, { metrics: [], client: [], server: [] }]),
  );
  let reranker = "none";
  const lines: string[] = [];
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
      const ranked = ingested.docsOfTurn
        ? toTurnDocumentIds(response.hits, ingested.docsOfTurn, ingested.docsOf, query.relevant)
        : toDocumentIds(
            response.hits.map((h) => h.memoryId),
            ingested.docsOf,
            query.relevant,
          );
      const bucket = perStage.get(stage);
      const metrics = queryMetrics(ranked, query.relevant);
      bucket?.metrics.push(metrics);
      lines.push(
        JSON.stringify({
          id: query.id,
          stage,
          ndcg10: metrics.ndcg10,
          query: query.text,
          top: ranked.slice(0, 3),
        }),
      );
      bucket?.client.push(elapsed);
      bucket?.server.push(response.latencyMs);
    }
  }
  const perQueryDir = values["per-query"];
  if (perQueryDir !== undefined) {
    await mkdir(perQueryDir, { recursive: true });
    await writeFile(join(perQueryDir, `${dataset.name}.jsonl`), `${lines.join("\n")}\n`);
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
  if (runPeers) {
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
    sampling: {
      of: eligible.length,
      limit: Number.isFinite(limit) ? limit : null,
      seed: values.seed,
      categories: categories === undefined ? null : [...categories],
    },
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

type EvalResult = NonNullable<Awaited<ReturnType<typeof evaluate>>>;

function printTable(result: EvalResult) {
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
  ...(values.prf === undefined ? {} : { prf: values.prf }),
});
try {
  await mkdir(values["out-dir"], { recursive: true });
  const summary: SetScores[] = [];
  for (const dir of datasets) {
    const result = await evaluate(core, dir);
    if (result === undefined) continue;
    printTable(result);
    summary.push({
      dataset: result.dataset,
      queries: result.queries,
      ndcg: Object.fromEntries(Object.entries(result.stages).map(([stage, r]) => [stage, r.metrics.ndcg10])),
    });
    await writeFile(
      join(values["out-dir"], `eval-${result.dataset}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
  }
  if (summary.length > 1) {
    const table = formatStageTable(summary, stageNames);
    process.stdout.write(`\nnDCG@10, stages × sets (embedder ${core.models.embedder.id})\n${table.text}`);
    await writeFile(
      join(values["out-dir"], "eval-all.json"),
      `${JSON.stringify(
        {
          measuredAt: new Date().toISOString(),
          embedder: core.models.embedder.id,
          sampling: {
            limit: Number.isFinite(limit) ? limit : null,
            seed: values.seed,
            categories: categories === undefined ? null : [...categories],
          },
          sets: summary,
          margins: table.margins,
          minOverBest: table.minOverBest ?? null,
          minOverBm25: table.minOverBm25 ?? null,
        },
        null,
        2,
      )}\n`,
    );
  }
} finally {
  await core.stop();
}
