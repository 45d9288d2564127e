/**
 * Okapi BM25 with k1 = 1.2 and b = 0.3 (ADR 0440; issue #6 began with b = 0.75). The standard 0.75
 * punishes length so hard that, in a workspace grown to 100k chunks where many short chunks repeat
 * parts of a long one, the long one falls out of the top 10 for the question it answers (hit@10 of
 * the synthetic corpus 0.39 at 100k vs 0.64 with b = 0.3); the nine eval sets do not tell 0.75 from
 * 0.3 (±0.01, no set worse than noise). Migration 0330's bm25_tf_part() computes the same
 * term-frequency part in SQL for the SQL scorer; both must agree (test/recall/bm25-index.test.ts).
 */
export const K1 = 1.2;
export const B = 0.3;
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

/** (k1 + 1) tf / (tf + k1 (1 - b + b dl / avgdl)); 0 for tf = 0. */
export function tfPart(tf: number, docLen: number, avgdl: number): number {
  if (tf <= 0) return 0;
  return (MAX_TF_PART * tf) / (tf + K1 * (1 - B + (B * docLen) / Math.max(avgdl, 1e-9)));
}
