/**
 * Pseudo-relevance feedback study (ADR 0570): ingests each set once through the real ingest path, then
 * runs every sampled query through runRecall — the code RecallService runs — once per PRF variant and
 * stage, with the same storage, models and BM25 indexes as the product. nDCG@10 per set × variant ×
 * stage, and per-query server-side latency of each variant's full stage.
 *
 *   npx tsx bench/prf-study.ts --all [--limit 100] [--variants '[{"chunks":5,"terms":10,"weight":0.3}]']
 *                               [--dataset DIR …] [--stages fused,full] [--out bench/results/prf-study.json]
 *
 * A variant is a partial PrfSettings over DEFAULT_PRF with `enabled: true`; the baseline (PRF off) always runs.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../config/logger.js";
import { DEFAULT_PRF, type PrfSettings } from "../core/recall/prf/feedback-pass.js";
import { ALL_STAGES, type RecallStageSwitches } from "../core/recall/recall-options.js";
import { DEFAULT_RECALL_TUNING, type RecallDeps, runRecall } from "../core/recall/run-recall.js";
import { ingestEvalDataset, toDocumentIds } from "./eval/ingest-eval-dataset.js";
import { listEvalSets } from "./eval/list-eval-sets.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { percentile, queryMetrics } from "./eval/retrieval-metrics.js";
import { sampleQueries } from "./eval/sample-queries.js";
import { startEvalCore } from "./eval/start-eval-core.js";

const STAGES: Record<string, RecallStageSwitches> = {
  bm25: { ...ALL_STAGES, vector: false, graph: false, rerank: false },
  vector: { ...ALL_STAGES, fulltext: false, graph: false, rerank: false },
  fused: { ...ALL_STAGES, graph: false, rerank: false },
  full: ALL_STAGES,
};

const { values } = parseArgs({
  options: {
    dataset: { type: "string", multiple: true },
    all: { type: "boolean", default: false },
    "eval-dir": { type: "string", default: "../shared/eval" },
    limit: { type: "string" },
    seed: { type: "string", default: "eval" },
    variants: { type: "string", default: "[]" },
    stages: { type: "string", default: "fused,full" },
    out: { type: "string", default: "bench/results/prf-study.json" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
  },
});

const datasets = [
  ...(values.dataset ?? []),
  ...(values.all ? await listEvalSets(resolve(values["eval-dir"])) : []),
];
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
const stageNames = values.stages.split(",");
const variants: { name: string; prf: PrfSettings }[] = [
  { name: "off", prf: DEFAULT_PRF },
  ...(JSON.parse(values.variants) as Partial<PrfSettings>[]).map((v) => {
    const prf = { ...DEFAULT_PRF, enabled: true, ...v };
    return {
      name: `d${prf.chunks} t${prf.terms} w${prf.weight} m${prf.minChunks}${prf.maxDfShare < 1 ? ` df${prf.maxDfShare}` : ""} v${prf.vectorWeight} ${prf.from} ${prf.calibrate}${prf.adaptive ? " adaptive" : ""}`,
      prf,
    };
  }),
];

const core = await startEvalCore({ lexiconCache: values["lexicon-cache"] });
const logger = createLogger("warn");
const base: RecallDeps = {
  db: core.storage.db,
  vectors: core.storage.vectors,
  embedder: core.models.embedder,
  reranker: core.models.reranker,
  lexicon: core.lexicon,
  thesaurus: core.models.thesaurus,
  logger,
  bm25Index: core.bm25Index,
};
const results: {
  dataset: string;
  queries: number;
  ndcg: Record<string, Record<string, number>>;
  ms: Record<string, { p50: number; p95: number; prfP50: number }>;
}[] = [];
try {
  for (const dir of datasets) {
    const dataset = await readEvalDataset(resolve(dir));
    const queries = sampleQueries(dataset.queries, limit, values.seed);
    const ingested = await ingestEvalDataset(core, dataset);
    process.stderr.write(
      `${dataset.name}: ${ingested.chunks} chunks; ${queries.length} queries × ${variants.length} variants\n`,
    );
    const sums = new Map<string, number>();
    const latency = new Map<string, number[]>();
    const prfMs = new Map<string, number[]>();
    for (const query of queries) {
      const tenantId = ingested.tenants.get(query.group)?.tenantId;
      if (tenantId === undefined) continue;
      for (const variant of variants) {
        const deps: RecallDeps = { ...base, tuning: { ...DEFAULT_RECALL_TUNING, prf: variant.prf } };
        for (const stage of stageNames) {
          const switches = STAGES[stage];
          if (switches === undefined) throw new Error(`unknown stage ${stage}`);
          if (variant.name !== "off" && !switches.fulltext && variant.prf.vectorWeight === 0) continue;
          const outcome = await runRecall(deps, tenantId, {
            query: query.text,
            k: 10,
            hops: 2,
            stages: switches,
          });
          const ranked = toDocumentIds(
            outcome.hits.map((h) => h.memoryId),
            ingested.docsOf,
            query.relevant,
          );
          const key = `${variant.name}|${stage}`;
          sums.set(key, (sums.get(key) ?? 0) + queryMetrics(ranked, query.relevant).ndcg10);
          if (stage === "full") {
            latency.set(variant.name, [...(latency.get(variant.name) ?? []), outcome.latencyMs]);
            const prf = outcome.timings.find((t) => t.stage === "prf")?.ms ?? 0;
            prfMs.set(variant.name, [...(prfMs.get(variant.name) ?? []), prf]);
          }
        }
      }
    }
    const ndcg: Record<string, Record<string, number>> = {};
    for (const [key, sum] of sums) {
      const [variant = "", stage = ""] = key.split("|");
      ndcg[variant] = { ...(ndcg[variant] ?? {}), [stage]: sum / queries.length };
    }
    const ms: Record<string, { p50: number; p95: number; prfP50: number }> = {};
    for (const [name, list] of latency)
      ms[name] = {
        p50: percentile(list, 50),
        p95: percentile(list, 95),
        prfP50: percentile(prfMs.get(name) ?? [], 50),
      };
    results.push({ dataset: dataset.name, queries: queries.length, ndcg, ms });
    process.stdout.write(`\n${dataset.name} (${queries.length} queries)\n`);
    for (const variant of variants) {
      const row = ndcg[variant.name] ?? {};
      const cells = stageNames.map((s) => `${s} ${row[s]?.toFixed(3) ?? "  -  "}`).join("  ");
      const m = ms[variant.name];
      process.stdout.write(
        `${variant.name.padEnd(36)} ${cells}  p50 ${m?.p50.toFixed(1)} prf ${m?.prfP50.toFixed(2)} ms\n`,
      );
    }
    await writeFile(
      values.out,
      `${JSON.stringify({ measuredAt: new Date().toISOString(), limit: values.limit ?? null, variants, results }, null, 2)}\n`,
    );
  }
} finally {
  await core.stop();
}
