import { averageLength, type CollectionStatistics } from "../read-collection-statistics.js";

/**
 * Okapi BM25 with k1 = 1.2 and b = 0.3 (ADR 0440; issue #6 began with b = 0.75), b shrinking above
 * 5,000 chunks (ADR 0590, lengthNormalisation). The standard 0.75
 * punishes length so hard that, in a workspace grown to 100k chunks where many short chunks repeat
 * parts of a long one, the long one falls out of the top 10 for the question it answers (hit@10 of
 * the synthetic corpus 0.39 at 100k vs 0.64 with b = 0.3); the nine eval sets do not tell 0.75 from
 * 0.3 (±0.01, no set worse than noise). Migration 0330's bm25_tf_part() computes the same
 * term-frequency part in SQL for the SQL scorer; both must agree (test/recall/bm25-index.test.ts).
 */
export const K1 = 1.2;
export const B = 0.3;
/** Up to this many chunks b is B; above it b shrinks (ADR 0590). */
export const B_FULL_UP_TO = 5_000;
/** The term-frequency part never exceeds this, however often a term occurs. */
export const MAX_TF_PART = K1 + 1;

/**
 * Inverse document frequency, Lucene's non-negative form: a term in every chunk still counts a
 * little instead of pulling a score below zero.
 */
export function idf(df: number, chunkCount: number): number {
  const n = Math.max(chunkCount, df, 0);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** What BM25's length normalisation needs of a collection: its average length and b. */
export interface LengthNormalisation {
  readonly avgdl: number;
  readonly b: number;
}

/**
 * b for a collection of `chunkCount` chunks: B up to 5,000, then B / (1 + ln(chunks / 5,000)) —
 * 0.18 at 10k, 0.075 at 100k, 0.06 at 300k (ADR 0590). A workspace that grows by short memories
 * restating parts of longer ones holds more such fragments of each long chunk the larger it gets;
 * length normalisation ranks the fragments above the chunk they came from (the synthetic corpus of
 * bench:growth: BM25 hit@10 at 100k 0.668 with b = 0.3, 0.772 with b = 0). Continuous at 5,000
 * chunks, so ranking does not jump when a workspace crosses it; every eval set is below it.
 */
export function lengthNormalisationB(chunkCount: number): number {
  return chunkCount <= B_FULL_UP_TO ? B : B / (1 + Math.log(chunkCount / B_FULL_UP_TO));
}

/** The collection's average length (at least 1) and b. */
export function lengthNormalisation(stats: CollectionStatistics): LengthNormalisation {
  return { avgdl: averageLength(stats), b: lengthNormalisationB(stats.chunkCount) };
}

/** (k1 + 1) tf / (tf + k1 (1 - b + b dl / avgdl)); 0 for tf = 0. */
export function tfPart(tf: number, docLen: number, { avgdl, b }: LengthNormalisation): number {
  if (tf <= 0) return 0;
  return (MAX_TF_PART * tf) / (tf + K1 * (1 - b + (b * docLen) / Math.max(avgdl, 1e-9)));
}
