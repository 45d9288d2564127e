/**
 * How the two first-stage channels should be fused (docs/recall.md "Fusion"):
 *
 *   npm run bench:fusion -- --dataset ../shared/eval/tatoeba_de2en [--dataset …] [--database-url URL]
 *
 * Ingests each set through the real ingest path, records per query the full-text ranking
 * (RecallService, BM25 only) and the vector channel's ranking with distances (`searchVectors`), then
 * fuses them offline with the production RRF under several vector weights. Scores nDCG@10 on the
 * first 500 queries of each set (where the variants were chosen) and on the rest (held out). Writes
 * bench/results/fusion-study.json.
 */

import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { fuseReciprocalRank } from "../core/recall/fuse/fuse-reciprocal-rank.js";
import { vectorChannelWeight, vectorLeadDistance } from "../core/recall/fuse/vector-lead-weight.js";
import { searchVectors } from "../core/recall/search-vectors.js";
import { RecallStagesSchema } from "../gen/memory/v1/recall_service_pb.js";
import { ingestEvalDataset, toDocumentIds } from "./eval/ingest-eval-dataset.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { ndcgAt } from "./eval/retrieval-metrics.js";
import { startEvalCore } from "./eval/start-eval-core.js";
import { writeBenchResult } from "./write-result.js";

const TUNE_QUERIES = 500;

const { values } = parseArgs({
  options: {
    dataset: { type: "string", multiple: true },
    "database-url": { type: "string" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
  },
});

/** One query's channel rankings, as evaluation document ids (best first). */
interface QueryChannels {
  readonly relevant: ReadonlySet<string>;
  readonly fulltext: readonly string[];
  readonly vector: readonly string[];
  readonly bestDistance: number | undefined;
}

type Variant = (q: QueryChannels) => readonly string[];

const fuse = (q: QueryChannels, vectorWeight: number) =>
  fuseReciprocalRank([
    { name: "fulltext", weight: 1, hits: q.fulltext.map((id) => ({ memoryId: id, chunkId: id })) },
    { name: "vector", weight: vectorWeight, hits: q.vector.map((id) => ({ memoryId: id, chunkId: id })) },
  ]).map((m) => m.memoryId);

const core = await startEvalCore({
  databaseUrl: values["database-url"],
  lexiconCache: values["lexicon-cache"],
  reranker: "none",
});
const leadDistance = vectorLeadDistance(core.models.embedder.id);
const variants: Record<string, Variant> = {
  bm25: (q) => q.fulltext,
  vector: (q) => q.vector,
  "rrf 1/1": (q) => fuse(q, 1),
  ...Object.fromEntries(
    [0.6, 0.65, 0.7].map((threshold) => [
      `vector lead below ${threshold}${threshold === leadDistance ? " (production)" : ""}`,
      (q: QueryChannels) => fuse(q, vectorChannelWeight(1, threshold, q.bestDistance)),
    ]),
  ),
};

const results: Record<string, Record<string, { tune: number; heldOut: number }>> = {};
try {
  for (const dir of values.dataset ?? []) {
    const dataset = await readEvalDataset(resolve(dir));
    const { tenants, docsOf } = await ingestEvalDataset(core, dataset);
    const queries: QueryChannels[] = [];
    for (const query of dataset.queries) {
      const tenant = tenants.get(query.group);
      if (tenant === undefined) continue;
      const toDocuments = (memoryIds: readonly string[]) => [
        ...new Set(toDocumentIds(memoryIds, docsOf, query.relevant)),
      ];
      const fulltext = await core.clients.recall.recall(
        {
          query: query.text,
          k: 25,
          stages: create(RecallStagesSchema, {
            disableVector: true,
            disableGraph: true,
            disableRerank: true,
          }),
        },
        { headers: tenant.headers },
      );
      const vectorHits = await searchVectors(
        core.storage.vectors,
        core.models.embedder,
        tenant.tenantId,
        query.text,
        50,
        undefined,
      );
      queries.push({
        relevant: query.relevant,
        fulltext: toDocuments(fulltext.hits.map((h) => h.memoryId)),
        vector: toDocuments(vectorHits.map((h) => h.memoryId)),
        bestDistance: vectorHits[0]?.distance,
      });
    }
    const mean = (qs: readonly QueryChannels[], variant: Variant) =>
      qs.length === 0 ? 0 : qs.reduce((sum, q) => sum + ndcgAt(variant(q), q.relevant, 10), 0) / qs.length;
    const perVariant: Record<string, { tune: number; heldOut: number }> = {};
    for (const [name, variant] of Object.entries(variants)) {
      perVariant[name] = {
        tune: mean(queries.slice(0, TUNE_QUERIES), variant),
        heldOut: mean(queries.slice(TUNE_QUERIES), variant),
      };
    }
    results[dataset.name] = perVariant;
    process.stdout.write(
      `\n${dataset.name} (${queries.length} queries; nDCG@10 first ${TUNE_QUERIES} / rest)\n`,
    );
    for (const [name, r] of Object.entries(perVariant)) {
      process.stdout.write(`  ${name.padEnd(34)} ${r.tune.toFixed(3)} / ${r.heldOut.toFixed(3)}\n`);
    }
  }
  writeBenchResult("fusion-study", {
    embedder: core.models.embedder.id,
    productionLeadDistance: leadDistance ?? null,
    tuneQueries: TUNE_QUERIES,
    metric: "nDCG@10",
    results,
  });
} finally {
  await core.stop();
}
