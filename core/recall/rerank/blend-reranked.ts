import { RRF_K } from "../fuse/fuse-reciprocal-rank.js";

/**
 * The final order of the reranked head: reciprocal-rank fusion of the reranker's order with the
 * first-stage (fused) order, the latter weighted by `firstStageWeight` (0: the reranker alone). Ranks
 * rather than scores, since rerankers' scores (logits, probabilities, feature sums) share no scale
 * with RRF scores. The returned items carry the blended score, best first; ties keep first-stage order.
 */
export function blendReranked<T extends { readonly score: number }>(
  head: readonly T[],
  rerankScores: readonly number[],
  firstStageWeight: number,
): T[] {
  if (rerankScores.length !== head.length) {
    throw new Error(`reranker returned ${rerankScores.length} scores for ${head.length} candidates`);
  }
  const byRerank = head
    .map((_, i) => i)
    .sort((a, b) => (rerankScores[b] ?? 0) - (rerankScores[a] ?? 0) || a - b);
  const rerankRank = new Array<number>(head.length);
  byRerank.forEach((index, rank) => {
    rerankRank[index] = rank + 1;
  });
  return head
    .map((item, i) => ({
      item,
      i,
      score: 1 / (RRF_K + (rerankRank[i] ?? head.length)) + firstStageWeight / (RRF_K + i + 1),
    }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ item, score }) => ({ ...item, score }));
}
