import { fillRefinementStrength } from "./refine-segment.js";
import { BoundaryStrength, type Segment, type SegmentKind } from "./segment.js";

/** A place the current chunk could end: after its first `keep` new segments. */
export interface CutCandidate {
  readonly keep: number;
  /** Tokens of the chunk if it ended here (overlap included). */
  readonly tokens: number;
  readonly strength: number;
}

export interface CutLimits {
  /** A chunk ending at a strong boundary should hold at least this many tokens. */
  readonly minFill: number;
  /** Cutting early to keep a code block, list or table whole is allowed once the chunk holds this many. */
  readonly keepWholeMin: number;
}

export type CutDecision = { readonly action: "cut"; readonly keep: number } | { readonly action: "refine" };

/** Blocks that stay whole in the next chunk rather than be divided, when they fit into one. */
const KEEP_WHOLE = new Set<SegmentKind>(["code", "list", "table"]);

/**
 * What to do when `next` does not fit into the current chunk: end the chunk at the best boundary in the
 * back half, end it early to keep a code block / list / table whole, or divide `next` to fill the chunk.
 * "Best" = strongest boundary, then the latest. A boundary in the back half wins whenever it is at least
 * as good as what dividing `next` would offer, so chunks end between blocks when they can, then between
 * sentences, and only then between words.
 */
export function chooseCut(
  candidates: readonly CutCandidate[],
  next: Segment,
  limits: CutLimits,
): CutDecision {
  const divisionStrength = fillRefinementStrength(next.kind);
  const inBackHalf = best(candidates.filter((c) => c.tokens >= limits.minFill));
  if (inBackHalf !== undefined && inBackHalf.strength >= (divisionStrength ?? Number.NEGATIVE_INFINITY)) {
    return { action: "cut", keep: inBackHalf.keep };
  }
  const current = candidates.at(-1);
  if (KEEP_WHOLE.has(next.kind) && current !== undefined && current.tokens >= limits.keepWholeMin) {
    // Only between blocks: ending early right after a heading would orphan the heading instead.
    const early = best(
      candidates.filter((c) => c.tokens >= limits.keepWholeMin && c.strength >= BoundaryStrength.block),
    );
    if (early !== undefined) return { action: "cut", keep: early.keep };
  }
  if (divisionStrength !== undefined) return { action: "refine" };
  return { action: "cut", keep: (inBackHalf ?? current)?.keep ?? candidates.length };
}

function best(candidates: readonly CutCandidate[]): CutCandidate | undefined {
  let chosen: CutCandidate | undefined;
  for (const candidate of candidates) {
    if (chosen === undefined || candidate.strength >= chosen.strength) chosen = candidate;
  }
  return chosen;
}
