/**
 * The final order of the reranked head when fusion scores are calibrated (fuse-calibrated-scores.ts)
 * and the reranker's scores are too (the built-in reranker: a weighted share of the query's words,
 * 0..≈1.3): what the reranker adds to a fused score (rerankContribution) is `weight` × how far its
 * score lies above the head's median — it promotes candidates that cover more of the query than the
 * typical candidate and never pushes one down. Scores keep their distances, where rank blending
 * (blend-reranked.ts) let the reranker's order swap candidates whose fused scores were far apart;
 * measured in docs/recall.md "Rerank" (ADR 0490). Returns the items with their new score, best first;
 * ties keep first-stage order.
 */
export function addRerankScores<T extends { readonly score: number; readonly timeFactor?: number }>(
  head: readonly T[],
  rerankScores: readonly number[],
  weight: number,
  bestSentences?: AddedBestSentences,
  semanticSentences?: AddedBestSentences,
): T[] {
  if (rerankScores.length !== head.length) {
    throw new Error(`reranker returned ${rerankScores.length} scores for ${head.length} candidates`);
  }
  for (const added of [bestSentences, semanticSentences]) {
    if (added !== undefined && added.scores.length !== head.length) {
      throw new Error(
        `reranker returned ${added.scores.length} sentence scores for ${head.length} candidates`,
      );
    }
  }
  const lift = rerankContribution(rerankScores, weight);
  const sentenceWeight = bestSentences?.weight ?? 0;
  // A time-boosted candidate's lift is scaled like its fused score: the time condition applies to
  // the whole score, or a well-worded candidate from the wrong day would win back what it lost.
  return head
    .map((item, i) => {
      const added =
        (lift[i] ?? 0) +
        sentenceWeight * (bestSentences?.scores[i] ?? 0) +
        (semanticSentences?.weight ?? 0) * (semanticSentences?.scores[i] ?? 0);
      return { item, i, score: item.score + added * (item.timeFactor ?? 1) };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ item, score }) => ({ ...item, score }));
}

/**
 * Each candidate's best-sentence cosine (Reranker.scoreBestSentences) and its weight: the vector
 * channel's share of the fusion × RecallTuning.bestSentenceWeight (ADR 0630). Added in full, not above
 * a median: it is a similarity on the fused vector term's own scale, not a count of matched words.
 */
export interface AddedBestSentences {
  readonly scores: readonly number[];
  readonly weight: number;
}

/**
 * What the reranker adds to each candidate of the head: weight × max(0, score − median score of the
 * head) (ADR 0490). The built-in reranker's differences below the median are mostly noise — one word
 * more or less of a long query, of a short sentence's dictionary translations, or of a long passage that
 * contains many words by its length alone — and adding them cost tatoeba_en2de 0.005 and, on hidden
 * sets, claims and library-science questions up to 0.010 nDCG@10. A one-sided lift keeps what the
 * reranker is good at (a candidate that clearly covers more of the query) and lets the fused order
 * stand elsewhere.
 */
export function rerankContribution(rerankScores: readonly number[], weight: number): number[] {
  const sorted = [...rerankScores].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return rerankScores.map((r) => weight * Math.max(0, r - median));
}
