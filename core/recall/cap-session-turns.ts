import type { Candidate } from "./recall-candidate.js";

/**
 * The order with at most `cap` turns of any one conversation session (ADR 0530): a turn past its
 * session's cap is left out, the next candidate moves up. Other candidates are never left out — every
 * other memory is a candidate once. Infinity keeps the order as it is.
 */
export function capSessionTurns(ordered: readonly Candidate[], cap: number): Candidate[] {
  if (!Number.isFinite(cap)) return [...ordered];
  const turns = new Map<string, number>();
  return ordered.filter((c) => {
    if (!c.chunk.turn) return true;
    const seen = turns.get(c.chunk.memoryId) ?? 0;
    turns.set(c.chunk.memoryId, seen + 1);
    return seen < cap;
  });
}
