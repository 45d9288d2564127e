import { BUILTIN_EMBEDDER_ID } from "../../models/builtin/create-builtin-embedder.js";
import { type FusedMemory, orderFused } from "./fuse-reciprocal-rank.js";

/**
 * Score fusion with per-channel calibration and a query-dependent share for each channel
 * (docs/recall.md "Fusion"). A memory's fused score is
 *
 *   α · bm25 / maxScore  +  (1 − α) · cosine similarity
 *
 * with both terms on [0, 1] and absolute: BM25 over the query's best possible score is the share of the
 * query's idf mass the memory matches, cosine similarity is the embedder's own scale. Unlike rank
 * fusion this keeps how far apart a channel's hits are: a channel whose best hit clearly stands out
 * moves the order, one whose hits are all alike does not (Bruch et al., "An Analysis of Fusion
 * Functions for Hybrid Retrieval", TOIS 2023: a convex combination of normalised scores beats RRF and
 * needs few queries to fit).
 *
 * α, full text's share, is a logistic function of two query-level confidences:
 * - vocabulary coverage: the share of the query's own lexemes the tenant's memories contain at all.
 *   A query in the memories' language scores near 1; across languages it is low (0.1–0.4 on the
 *   development sets), BM25 then sees only dictionary translations and the vector channel should lead.
 * - the vector channel's margin: distance of its second hit minus its first. A clear margin means a
 *   near-paraphrase stands out from the rest.
 * - the workspace's size beyond SIZE_FEATURE_FROM chunks, as coverage × ln(chunks / SIZE_FEATURE_FROM):
 *   a dense channel's top ranks fill with near neighbours faster than BM25's as the collection grows
 *   (Reimers & Gurevych, "The Curse of Dense Low-Dimensional Information Retrieval for Large Index
 *   Sizes", ACL 2021), the more so for a small embedder like the built-in one. Times coverage: across
 *   languages BM25 sees only translations and the vector channel keeps its say. 0 for every
 *   evaluation set (≤ 4,000 chunks).
 * The first three numbers fitted on xquad, tatoeba and covidfaq_de and checked on covidfaq_en and
 * covidqa_en; the size weight fitted at 10,000 chunks of the growth corpus and checked at 100,000
 * (bench:growth, docs/recall.md "Fusion").
 */
export interface ChannelShareWeights {
  readonly bias: number;
  readonly coverage: number;
  readonly vectorMargin: number;
  readonly size: number;
}

/** Workspaces up to this many chunks get no size term (above every evaluation set's size). */
export const SIZE_FEATURE_FROM = 5_000;

const SIZE_WEIGHT = 1.5;

/** The fitted weights (bench:fusion, 2026-11-24; size 2026-12-06); distances are model-specific, so per embedder. */
const SHARE_WEIGHTS: readonly { readonly idPrefix: string; readonly weights: ChannelShareWeights }[] = [
  {
    idPrefix: BUILTIN_EMBEDDER_ID,
    weights: { bias: -1.4, coverage: 2.5, vectorMargin: -3.8, size: SIZE_WEIGHT },
  },
];

/** Weights of a calibrated embedder; undefined: fuse by rank (plain RRF), since its scale is unknown. */
export function channelShareWeights(embedderId: string): ChannelShareWeights | undefined {
  return SHARE_WEIGHTS.find((entry) => embedderId.startsWith(entry.idPrefix))?.weights;
}

export interface QueryConfidence {
  /** Share of the query's own lexemes that occur in the tenant's current chunks, 0..1. */
  readonly coverage: number;
  /** Cosine distance of the vector channel's second memory minus its first (0 with fewer than two). */
  readonly vectorMargin: number;
  /** The tenant's current chunks (BM25's N). */
  readonly chunkCount: number;
}

/** The size feature: ln(chunks / SIZE_FEATURE_FROM) above it, 0 up to it. */
export const sizeExcess = (chunkCount: number) => Math.max(0, Math.log(chunkCount / SIZE_FEATURE_FROM));

/** α: full text's share of the fused score for this query, in (0, 1). */
export function fulltextShare(weights: ChannelShareWeights, confidence: QueryConfidence): number {
  const x =
    weights.bias +
    weights.coverage * confidence.coverage +
    weights.vectorMargin * confidence.vectorMargin +
    weights.size * confidence.coverage * sizeExcess(confidence.chunkCount);
  return 1 / (1 + Math.exp(-x));
}

export interface ScoredFulltextHit {
  readonly memoryId: string;
  readonly chunkId: string;
  readonly score: number;
}

export interface ScoredVectorHit {
  readonly memoryId: string;
  readonly chunkId: string;
  /** Cosine distance, lower is closer. */
  readonly distance: number;
}

/** The vector channel's margin as QueryConfidence wants it: at memory level, best first. */
export function vectorMargin(hits: readonly ScoredVectorHit[]): number {
  const first = hits[0];
  const second = hits.find((h) => h.memoryId !== first?.memoryId);
  return first === undefined || second === undefined ? 0 : Math.max(0, second.distance - first.distance);
}

/**
 * Fuses per memory (a memory counts with its best chunk in each channel; a channel that did not find
 * it adds 0). `maxScore` is the query's best possible BM25 score. Equal scores: better single rank,
 * then full text, then id — as fuseReciprocalRank, so the order is total and deterministic.
 */
export function fuseCalibratedScores(
  fulltext: readonly ScoredFulltextHit[],
  maxScore: number,
  vector: readonly ScoredVectorHit[],
  share: number,
): FusedMemory[] {
  const alpha = Math.min(1, Math.max(0, share));
  const fused = new Map<
    string,
    {
      score: number;
      chunkId: string;
      best: number;
      tie: number;
      ranks: { fulltext?: number; vector?: number };
    }
  >();
  const add = (memoryId: string, chunkId: string, value: number, rank: number, channel: 0 | 1) => {
    const tie = rank * 2 + channel;
    const entry = fused.get(memoryId);
    const ranks = channel === 0 ? { fulltext: rank } : { vector: rank };
    if (entry === undefined) {
      fused.set(memoryId, { score: value, chunkId, best: value, tie, ranks });
      return;
    }
    entry.score += value;
    entry.tie = Math.min(entry.tie, tie);
    Object.assign(entry.ranks, ranks);
    if (value > entry.best) {
      entry.best = value;
      entry.chunkId = chunkId;
    }
  };
  const seen = new Set<string>();
  let rank = 0;
  for (const hit of fulltext) {
    if (seen.has(hit.memoryId)) continue;
    seen.add(hit.memoryId);
    rank++;
    add(hit.memoryId, hit.chunkId, maxScore > 0 ? (alpha * Math.max(0, hit.score)) / maxScore : 0, rank, 0);
  }
  seen.clear();
  rank = 0;
  for (const hit of vector) {
    if (seen.has(hit.memoryId)) continue;
    seen.add(hit.memoryId);
    rank++;
    add(hit.memoryId, hit.chunkId, (1 - alpha) * Math.min(1, Math.max(0, 1 - hit.distance)), rank, 1);
  }
  return orderFused(fused);
}
