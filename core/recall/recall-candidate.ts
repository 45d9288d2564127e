import type { FusedMemory } from "./fuse/fuse-reciprocal-rank.js";
import type { CandidateChunk } from "./read-candidate-chunks.js";

/** Spec RecallHit.source: which channel surfaced the hit. */
export type HitSource = "fulltext" | "vector" | "hybrid" | "graph";

/** A memory on its way through the pipeline, with what the explanation of its hit needs. */
export interface Candidate {
  readonly chunk: CandidateChunk;
  readonly score: number;
  readonly source: HitSource;
  readonly hops: number;
  /** Channel ranks (direct hits); the fused score stays here when rerank changes `score`. */
  readonly ranks?: FusedMemory["ranks"];
  readonly fusedScore?: number;
  readonly rerankScore?: number;
  /** Graph hits, explain only: relation types from the seed and the seed. */
  readonly graphPath?: readonly string[];
  readonly graphSeedId?: string;
  /** With a time expression in the query: how well the memory's valid time matches it (0..1). */
  readonly timeMatch?: number;
  /** With a time expression: the factor the time boost multiplied the score by (time/time-boost.ts). */
  readonly timeFactor?: number;
}

/** The channel of a fused hit: both, or the one that found it. */
export const sourceOf = (f: FusedMemory): HitSource =>
  f.ranks.fulltext !== undefined && f.ranks.vector !== undefined
    ? "hybrid"
    : f.ranks.fulltext !== undefined
      ? "fulltext"
      : "vector";
