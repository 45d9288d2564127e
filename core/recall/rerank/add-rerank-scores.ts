/**
 * The final order of the reranked head when fusion scores are calibrated (fuse-calibrated-scores.ts)
 * and the reranker's scores are too (the built-in reranker: a weighted share of the query's words,
 * 0..≈1.3): the reranker's score is added to the fused score like a third channel, weighted by
 * `weight`. Scores keep their distances, where rank blending (blend-reranked.ts) let the reranker's
 * order swap candidates whose fused scores were far apart; measured in docs/recall.md "Rerank".
 * Returns the items with their new score, best first; ties keep first-stage order.
 */
export function addRerankScores<T extends { readonly score: number }>(
  head: readonly T[],
  rerankScores: readonly number[],
  weight: number,
): T[] {
  if (rerankScores.length !== head.length) {
    throw new Error(`reranker returned ${rerankScores.length} scores for ${head.length} candidates`);
  }
  return head
    .map((item, i) => ({ item, i, score: item.score + weight * (rerankScores[i] ?? 0) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ item, score }) => ({ ...item, score }));
}
