/**
 * Ranking metrics with binary relevance (shared/eval README): recall@k, MRR@10 and nDCG@10 per query,
 * averaged by the caller. `ranked` is best first; ids may repeat only if the system returned duplicates.
 */
export interface QueryMetrics {
  readonly recall1: number;
  readonly recall5: number;
  readonly recall10: number;
  readonly mrr10: number;
  readonly ndcg10: number;
}

export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  const found = new Set(ranked.slice(0, k).filter((id) => relevant.has(id)));
  return found.size / relevant.size;
}

export function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  const index = ranked.slice(0, k).findIndex((id) => relevant.has(id));
  return index < 0 ? 0 : 1 / (index + 1);
}

export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  const seen = new Set<string>();
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

export function queryMetrics(ranked: readonly string[], relevant: ReadonlySet<string>): QueryMetrics {
  return {
    recall1: recallAt(ranked, relevant, 1),
    recall5: recallAt(ranked, relevant, 5),
    recall10: recallAt(ranked, relevant, 10),
    mrr10: reciprocalRank(ranked, relevant, 10),
    ndcg10: ndcgAt(ranked, relevant, 10),
  };
}

export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const mean = (pick: (m: QueryMetrics) => number) =>
    all.length === 0 ? 0 : all.reduce((sum, m) => sum + pick(m), 0) / all.length;
  return {
    recall1: mean((m) => m.recall1),
    recall5: mean((m) => m.recall5),
    recall10: mean((m) => m.recall10),
    mrr10: mean((m) => m.mrr10),
    ndcg10: mean((m) => m.ndcg10),
  };
}

/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
