import { type CutCandidate, type CutLimits, chooseCut } from "./choose-cut.js";
import { chooseOverlapStart } from "./choose-overlap-start.js";
import type { Chunk } from "./chunk.js";
import { type RefineContext, refineSegment } from "./refine-segment.js";
import type { Segment } from "./segment.js";

export interface PackContext extends RefineContext {
  readonly maxTokens: number;
  readonly overlapTokens: number;
  readonly limits: CutLimits;
}

/**
 * Greedy packing: each chunk starts with the overlap (the previous chunk's tail) and takes whole
 * segments while they fit; when the next one does not, `chooseCut` ends the chunk or divides the segment.
 * Segment counts are per-piece estimates, so every chunk is counted once more as a whole and shortened if
 * the tokenizer is not additive across the boundaries — the limit holds for the real count.
 */
export function packSegments(ctx: PackContext, segments: readonly Segment[]): Chunk[] {
  const pending = [...segments].reverse(); // a stack: the next segment is at the end
  const chunks: Chunk[] = [];
  let chunkStart = 0;
  let overlapTokens = 0;
  let used = 0;
  let taken: Segment[] = [];

  const refineNext = (): boolean => {
    const next = pending.pop();
    if (next === undefined) return false;
    const children = refineSegment(ctx, next);
    if (children.length === 0) {
      pending.push(next);
      return false;
    }
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as Segment);
    return true;
  };

  const cutCandidates = (next: Segment): CutCandidate[] => {
    const candidates: CutCandidate[] = [];
    let tokens = overlapTokens;
    for (let i = 0; i < taken.length; i++) {
      tokens += (taken[i] as Segment).tokens;
      candidates.push({ keep: i + 1, tokens, strength: (taken[i + 1] ?? next).strength });
    }
    return candidates;
  };

  /** How many taken segments the chunk keeps, or undefined to go on packing. */
  const decideKeep = (): number | undefined => {
    const next = pending.at(-1);
    if (next === undefined) return taken.length;
    if (used + next.tokens <= ctx.maxTokens) {
      taken.push(next);
      pending.pop();
      used += next.tokens;
      return undefined;
    }
    if (next.tokens > ctx.pieceLimit && refineNext()) return undefined;
    if (taken.length === 0) {
      // Only an indivisible piece worth more tokens than a chunk (a single character under an absurdly
      // small limit) gets here: it becomes a chunk of its own, without overlap.
      taken.push(next);
      pending.pop();
      chunkStart = next.start;
      return 1;
    }
    const decision = chooseCut(cutCandidates(next), next, ctx.limits);
    if (decision.action === "cut") return decision.keep;
    return refineNext() ? undefined : taken.length;
  };

  const emit = (keep: number): Chunk => {
    let kept = keep;
    let start = chunkStart;
    let end = (taken[kept - 1] as Segment).end;
    let tokens = ctx.tokenizer.countTokens(ctx.text.slice(start, end));
    while (tokens > ctx.maxTokens) {
      const first = taken[0] as Segment;
      if (kept > 1) kept--;
      else if (start < first.start) start = first.start;
      else break;
      end = (taken[kept - 1] as Segment).end;
      tokens = ctx.tokenizer.countTokens(ctx.text.slice(start, end));
    }
    for (let i = taken.length - 1; i >= kept; i--) pending.push(taken[i] as Segment);
    taken = [];
    const chunk: Chunk = {
      ordinal: chunks.length,
      text: ctx.text.slice(start, end),
      charStart: start,
      charEnd: end,
      tokenCount: tokens,
    };
    chunks.push(chunk);
    return chunk;
  };

  const startNextChunk = (previous: Chunk): void => {
    // The overlap is sized so that the next segment fits after it; divide that segment first if it
    // cannot fit into any chunk.
    while ((pending.at(-1)?.tokens ?? 0) > ctx.pieceLimit && refineNext()) {}
    const next = pending.at(-1);
    if (next === undefined) return;
    const overlap = chooseOverlapStart({
      text: ctx.text,
      tokenizer: ctx.tokenizer,
      floor: previous.charStart,
      end: previous.charEnd,
      targetTokens: ctx.overlapTokens,
      limitTokens: ctx.maxTokens - next.tokens,
    });
    chunkStart = overlap.start;
    overlapTokens = overlap.tokens;
    used = overlap.tokens;
  };

  while (pending.length > 0 || taken.length > 0) {
    const keep = decideKeep();
    if (keep === undefined) continue;
    startNextChunk(emit(keep));
  }
  return chunks;
}
