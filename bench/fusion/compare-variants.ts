import { BUILTIN_EMBEDDER_ID } from "../../core/models/builtin/create-builtin-embedder.js";
import {
  type ChannelShareWeights,
  channelShareWeights,
  fulltextShare,
  fuseCalibratedScores,
  vectorMargin,
} from "../../core/recall/fuse/fuse-calibrated-scores.js";
import { fuseReciprocalRank } from "../../core/recall/fuse/fuse-reciprocal-rank.js";
import { vectorChannelWeight } from "../../core/recall/fuse/vector-lead-weight.js";
import { addRerankScores } from "../../core/recall/rerank/add-rerank-scores.js";
import { blendReranked } from "../../core/recall/rerank/blend-reranked.js";
import { DEFAULT_RECALL_TUNING } from "../../core/recall/run-recall.js";
import { ndcgAt } from "../eval/retrieval-metrics.js";
import type { RecordedQuery, RecordedSet } from "./record-channels.js";

/** Sets the fusion was fitted on; every other set is held out (docs/recall.md "Fusion"). */
export const TUNE_SETS = [
  "xquad_de",
  "xquad_en",
  "xquad_de2en",
  "xquad_en2de",
  "tatoeba_de2en",
  "tatoeba_en2de",
  "covidfaq_de",
];

/**
 * A fusion: the query's memories, best first, and the reranker's say in the final order relative to
 * the fused order's (run-recall.ts: full text's share of the fusion, 1 for rank fusion).
 */
export type Variant = (q: RecordedQuery) => FusedOrder;

export interface FusedOrder {
  readonly order: readonly string[];
  /** Rank blending (blend-reranked.ts) with this reranker share, or added scores (add-rerank-scores.ts). */
  readonly rerankShare: number;
  readonly addedRerank?: { readonly scores: readonly number[]; readonly weight: number };
}

const asHits = (hits: RecordedQuery["fulltext"]) =>
  hits.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId }));

/** Full text's share of the fusion for a recorded query (production: fulltextShare). */
export function shareOf(q: RecordedQuery, weights: ChannelShareWeights): number {
  const vector = q.vector.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, distance: h.value }));
  return fulltextShare(weights, {
    coverage: q.coverage,
    vectorMargin: vectorMargin(vector),
    chunkCount: q.chunkCount ?? 0,
  });
}

const rankFused = (channels: Parameters<typeof fuseReciprocalRank>[0]) => ({
  order: fuseReciprocalRank(channels).map((m) => m.memoryId),
  rerankShare: 1,
});

/** A recorded query's two channels fused as production fuses them, with full text's share `share`. */
export const calibratedFusion = (q: RecordedQuery, share: number) =>
  fuseCalibratedScores(
    q.fulltext.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, score: h.value })),
    q.maxScore,
    q.vector.map((h) => ({ memoryId: h.memoryId, chunkId: h.chunkId, distance: h.value })),
    share,
  );
const calibrated = (q: RecordedQuery, share: number) => calibratedFusion(q, share).map((m) => m.memoryId);

/** The production weights (core/recall/fuse/fuse-calibrated-scores.ts). */
export const PRODUCTION_SHARE: ChannelShareWeights = channelShareWeights(BUILTIN_EMBEDDER_ID) ?? {
  bias: -1.4,
  coverage: 2.5,
  vectorMargin: -3.8,
  size: 0,
};

export const VARIANTS: Record<string, Variant> = {
  bm25: (q) => ({ order: q.fulltext.map((h) => h.memoryId), rerankShare: 1 }),
  vector: (q) => ({ order: q.vector.map((h) => h.memoryId), rerankShare: 1 }),
  "rrf 1/1": (q) =>
    rankFused([
      { name: "fulltext", weight: 1, hits: asHits(q.fulltext) },
      { name: "vector", weight: 1, hits: asHits(q.vector) },
    ]),
  "rrf + vector lead 0.65 (before)": (q) =>
    rankFused([
      { name: "fulltext", weight: 1, hits: asHits(q.fulltext) },
      { name: "vector", weight: vectorChannelWeight(1, 0.65, q.vector[0]?.value), hits: asHits(q.vector) },
    ]),
  "scores, fixed share 0.6": (q) => ({ order: calibrated(q, 0.6), rerankShare: 1 }),
  "scores, share(cov, margin), rerank 1": (q) => ({
    order: calibrated(q, shareOf(q, PRODUCTION_SHARE)),
    rerankShare: 1,
  }),
  "scores, share(cov, margin), rerank share": (q) => {
    const share = shareOf(q, PRODUCTION_SHARE);
    return { order: calibrated(q, share), rerankShare: share };
  },
  "scores, share(cov, margin), rerank + 0.2·share": (q) => addedRerank(q, (share) => 0.2 * share),
  "scores, share(cov, margin), rerank + fixed (now)": (q) =>
    addedRerank(q, () => DEFAULT_RECALL_TUNING.rerankScoreWeight),
};

/** Calibrated fusion, then the reranker's score added with a weight that may depend on the share. */
function addedRerank(q: RecordedQuery, weightOf: (share: number) => number): FusedOrder {
  const share = shareOf(q, PRODUCTION_SHARE);
  const fused = calibratedFusion(q, share);
  return {
    order: fused.map((m) => m.memoryId),
    rerankShare: share,
    addedRerank: { scores: fused.map((m) => m.score), weight: weightOf(share) },
  };
}

const RERANK_DEPTH = 20;

/** The production rerank step on a fused order: the reranker's order blended with it over the head. */
export function rerankOrder(q: RecordedQuery, fused: FusedOrder): string[] {
  const { order, rerankShare, addedRerank } = fused;
  const head = order
    .slice(0, RERANK_DEPTH)
    .map((id, i) => ({ id, score: addedRerank?.scores[i] ?? 1 / (i + 1) }));
  if (head.length < 2 || rerankShare <= 0) return [...order];
  const rerankScores = head.map((h) => q.rerank[h.id] ?? 0);
  const blended =
    addedRerank !== undefined
      ? addRerankScores(head, rerankScores, addedRerank.weight)
      : blendReranked(head, rerankScores, 1 / rerankShare);
  return [...blended.map((h) => h.id), ...order.slice(RERANK_DEPTH)];
}

const docsOf = (q: RecordedQuery) => {
  const doc = new Map([...q.fulltext, ...q.vector].map((h) => [h.memoryId, h.doc]));
  return (order: readonly string[]) => order.map((id) => doc.get(id) ?? id);
};

export function scoreVariant(set: RecordedSet, variant: Variant, rerank: boolean): number {
  if (set.queries.length === 0) return 0;
  let sum = 0;
  for (const q of set.queries) {
    const fused = variant(q);
    const order = rerank ? rerankOrder(q, fused) : fused.order;
    sum += ndcgAt(docsOf(q)(order), new Set(q.relevant), 10);
  }
  return sum / set.queries.length;
}

export interface Comparison {
  readonly text: string;
  readonly results: Record<string, Record<string, { fused: number; reranked: number }>>;
}

export function compareVariants(
  sets: readonly RecordedSet[],
  variants: Record<string, Variant> = VARIANTS,
): Comparison {
  const ordered = [...sets].sort(
    (a, b) =>
      Number(!TUNE_SETS.includes(a.dataset)) - Number(!TUNE_SETS.includes(b.dataset)) ||
      (a.dataset < b.dataset ? -1 : 1),
  );
  const results: Comparison["results"] = {};
  const lines = [
    `nDCG@10 fused / fused + rerank; fitted on ${TUNE_SETS.join(", ")}; held out: the rest (*)`,
    `${"variant".padEnd(44)}${ordered.map((s) => `${s.dataset}${TUNE_SETS.includes(s.dataset) ? "" : "*"}`.padStart(16)).join("")}  min fused−best  min rerank−best`,
  ];
  const best = new Map(
    ordered.map((s) => [
      s.dataset,
      Math.max(
        scoreVariant(s, VARIANTS.bm25 ?? (() => ({ order: [], rerankShare: 1 })), false),
        scoreVariant(s, VARIANTS.vector ?? (() => ({ order: [], rerankShare: 1 })), false),
      ),
    ]),
  );
  for (const [name, variant] of Object.entries(variants)) {
    const row: Record<string, { fused: number; reranked: number }> = {};
    for (const s of ordered)
      row[s.dataset] = { fused: scoreVariant(s, variant, false), reranked: scoreVariant(s, variant, true) };
    results[name] = row;
    const minFused = Math.min(
      ...ordered.map((s) => (row[s.dataset]?.fused ?? 0) - (best.get(s.dataset) ?? 0)),
    );
    const minReranked = Math.min(
      ...ordered.map((s) => (row[s.dataset]?.reranked ?? 0) - (best.get(s.dataset) ?? 0)),
    );
    lines.push(
      `${name.slice(0, 43).padEnd(44)}${ordered.map((s) => `${row[s.dataset]?.fused.toFixed(3)}/${row[s.dataset]?.reranked.toFixed(3)}`.padStart(16)).join("")}  ${minFused.toFixed(3).padStart(13)}  ${minReranked.toFixed(3).padStart(15)}`,
    );
  }
  return { text: `${lines.join("\n")}\n`, results };
}
