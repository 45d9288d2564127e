/**
 * Okapi BM25 as the issue fixes it (k1 = 1.2, b = 0.75). The migration's bm25_tf_part() computes the
 * same term-frequency part in SQL for the SQL scorer; both must agree (test/recall/bm25-index.test.ts).
 */
export const K1 = 1.2;
export const B = 0.75;
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
