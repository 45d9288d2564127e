/**
 * MaxScore's split: the terms with the smallest upper bounds whose bounds together stay at or below
 * `threshold` (a certified lower bound of the k-th best score) are non-essential — a chunk containing
 * only those cannot reach the top k, so only chunks with at least one essential term are candidates.
 */
export interface EssentialSplit {
  /** Per term, in input order. */
  readonly essential: readonly boolean[];
  /** Sum of the non-essential terms' bounds: what they can add to a candidate at most. */
  readonly nonEssentialBound: number;
}

export function splitEssentialTerms(bounds: readonly number[], threshold: number): EssentialSplit {
  const order = bounds.map((bound, t) => ({ bound, t })).sort((a, b) => a.bound - b.bound || a.t - b.t);
  const essential = bounds.map(() => true);
  let sum = 0;
  for (const { bound, t } of order) {
    if (sum + bound > threshold) break;
    sum += bound;
    essential[t] = false;
  }
  return { essential, nonEssentialBound: sum };
}
