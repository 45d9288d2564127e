import type { QueryTime } from "./parse-query-time.js";

const DAY = 86_400_000;

/**
 * How far a memory's valid time lies from the query's interval, as a match in [0, 1]: 1 inside,
 * decaying with the distance outside — on the scale of the interval itself (a day for "gestern", half a
 * month for "im März"), so a turn just past midnight or a day off is not lost, one a year off is.
 */
export function timeMatch(at: Date, time: Pick<QueryTime, "from" | "to">): number {
  const t = at.getTime();
  const from = time.from.getTime();
  const to = time.to.getTime();
  if (t >= from && t < to) return 1;
  const distance = t < from ? from - t : t - to;
  const scale = Math.max(DAY, Math.min(30 * DAY, (to - from) / 2));
  return Math.exp(-distance / scale);
}

/**
 * A soft time condition on fused scores: a memory outside the query's interval keeps (1 − strength) of
 * its score plus strength × its match, one inside keeps all of it. Soft, not a filter: a query whose
 * time words describe the content ("the March 2026 release notes") still finds it. Returns the
 * candidates re-sorted (stable), each with its match and factor; the reranker's lift is scaled by the
 * same factor (rerank/add-rerank-scores.ts), so the time condition holds for the final score too.
 */
export function applyTimeBoost<
  T extends { readonly score: number; readonly chunk: { readonly validFrom: Date } },
>(
  candidates: readonly T[],
  time: Pick<QueryTime, "from" | "to">,
  strength: number,
): (T & { readonly timeMatch: number; readonly timeFactor: number })[] {
  return candidates
    .map((c, i) => {
      const match = timeMatch(c.chunk.validFrom, time);
      const factor = 1 - strength + strength * match;
      return { c: { ...c, score: c.score * factor, timeMatch: match, timeFactor: factor }, i };
    })
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .map(({ c }) => c);
}

/**
 * The order for a question that names only a time (ADR 0610): `match × (1 + score)` — every memory
 * inside the interval (≥ 1) ahead of every memory well outside it, the fused score ordering each
 * side, and near the interval's edge a strong match may still pass a weak one inside. Unlike the
 * soft boost, a memory the channels scored 0 (nothing of the question but its time in common) still
 * counts inside the interval, and when no memory lies inside, the nearest in time come first.
 */
export function applyTimeOnly<
  T extends { readonly score: number; readonly chunk: { readonly validFrom: Date } },
>(candidates: readonly T[], time: Pick<QueryTime, "from" | "to">): (T & { readonly timeMatch: number })[] {
  return candidates
    .map((c, i) => {
      const match = timeMatch(c.chunk.validFrom, time);
      return { c: { ...c, score: match * (1 + Math.max(0, c.score)), timeMatch: match }, i };
    })
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .map(({ c }) => c);
}
