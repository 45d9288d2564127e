import type { Tokenizer } from "../models/embedding-provider.js";
import { LIST_ITEM } from "./markdown-blocks.js";
import { BoundaryStrength, type Segment, type SegmentKind } from "./segment.js";
import { sentenceStarts } from "./sentence-starts.js";
import { isBreakingSpace, lineStarts, snapToCharacterStart, wordStarts } from "./word-boundaries.js";

export interface RefineContext {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  readonly sentenceSegmenter: Intl.Segmenter;
  readonly wordSegmenter: Intl.Segmenter;
  /** No piece of a cut word may exceed this many tokens. */
  readonly pieceLimit: number;
}

interface Splitter {
  readonly kind: SegmentKind;
  readonly strength: number;
  starts(ctx: RefineContext, start: number, end: number): number[];
}

const SENTENCES: Splitter = {
  kind: "sentence",
  strength: BoundaryStrength.sentence,
  starts: (ctx, start, end) => sentenceStarts(ctx.text, start, end, ctx.sentenceSegmenter),
};
const ITEMS: Splitter = {
  kind: "item",
  strength: BoundaryStrength.item,
  starts: (ctx, start, end) => listItemStarts(ctx.text, start, end),
};
const LINES: Splitter = {
  kind: "line",
  strength: BoundaryStrength.line,
  starts: (ctx, start, end) => lineStarts(ctx.text, start, end),
};
const WORDS: Splitter = {
  kind: "word",
  strength: BoundaryStrength.word,
  starts: (ctx, start, end) => wordStarts(ctx.text, start, end),
};
const SUBWORDS: Splitter = {
  kind: "subword",
  strength: BoundaryStrength.insideWord,
  starts: (ctx, start, end) => subwordStarts(ctx, start, end),
};

/** How each kind of segment divides, coarsest first; the first splitter that finds a boundary wins. */
const SPLITTERS: Record<SegmentKind, readonly Splitter[]> = {
  heading: [SENTENCES, LINES, WORDS, SUBWORDS],
  paragraph: [SENTENCES, LINES, WORDS, SUBWORDS],
  quote: [SENTENCES, LINES, WORDS, SUBWORDS],
  item: [SENTENCES, LINES, WORDS, SUBWORDS],
  list: [ITEMS, LINES, WORDS, SUBWORDS],
  code: [LINES, WORDS, SUBWORDS],
  table: [LINES, WORDS, SUBWORDS],
  sentence: [WORDS, SUBWORDS],
  line: [WORDS, SUBWORDS],
  word: [SUBWORDS],
  subword: [],
  piece: [],
};

/** Kinds the packer may divide just to fill a chunk; words are divided only when longer than a chunk. */
const FILL_REFINABLE = new Set<SegmentKind>([
  "heading",
  "paragraph",
  "quote",
  "item",
  "list",
  "code",
  "table",
  "sentence",
  "line",
]);

/** Strength of the boundaries that dividing a segment of this kind would produce, if it may be divided to fill. */
export function fillRefinementStrength(kind: SegmentKind): number | undefined {
  return FILL_REFINABLE.has(kind) ? SPLITTERS[kind][0]?.strength : undefined;
}

/**
 * Divides a segment into the next finer segments. Returns [] when it cannot be divided. A run without
 * whitespace that is still over `pieceLimit` is cut into pieces — the one case where a word is split.
 */
export function refineSegment(ctx: RefineContext, segment: Segment): Segment[] {
  for (const splitter of SPLITTERS[segment.kind]) {
    const starts = splitter.starts(ctx, segment.start, segment.end);
    if (starts.length > 0) return segmentsBetween(ctx, segment, [...starts, segment.end], splitter);
  }
  return segment.tokens > ctx.pieceLimit ? cutIntoPieces(ctx, segment) : [];
}

function segmentsBetween(ctx: RefineContext, parent: Segment, ends: number[], splitter: Splitter): Segment[] {
  const segments: Segment[] = [];
  let start = parent.start;
  for (const end of ends) {
    segments.push({
      start,
      end,
      tokens: ctx.tokenizer.countTokens(ctx.text.slice(start, end)),
      // The first child's start is the parent's start and keeps its quality as a chunk end.
      strength: segments.length === 0 ? parent.strength : splitter.strength,
      kind: splitter.kind,
    });
    start = end;
  }
  return segments;
}

function listItemStarts(text: string, start: number, end: number): number[] {
  return lineStarts(text, start, end).filter((lineStart) => {
    const lineEnd = text.indexOf("\n", lineStart);
    return LIST_ITEM.test(text.slice(lineStart, lineEnd === -1 ? end : Math.min(lineEnd, end)));
  });
}

/** Word-segmenter boundaries inside a whitespace-free run, windowed for the same reason as sentences. */
function subwordStarts(ctx: RefineContext, start: number, end: number): number[] {
  const windowChars = 1024;
  const starts: number[] = [];
  let from = start;
  while (from < end) {
    const windowEnd = Math.min(end, from + windowChars);
    const trustedEnd = windowEnd === end ? end : windowEnd - 32;
    let last = from;
    for (const { index } of ctx.wordSegmenter.segment(ctx.text.slice(from, windowEnd))) {
      const pos = from + index;
      if (pos <= from) continue;
      if (pos >= trustedEnd) break;
      if (!isBreakingSpace(ctx.text.charCodeAt(pos))) {
        starts.push(pos);
        last = pos;
      }
    }
    if (windowEnd === end) break;
    from = last > from + windowChars / 2 ? last : trustedEnd;
  }
  return starts;
}

/**
 * Hard cut of a run that has no usable boundary (e.g. a base64 blob): pieces sized from the run's
 * characters-per-token ratio, shrunk until each counts at most `pieceLimit` tokens.
 */
function cutIntoPieces(ctx: RefineContext, segment: Segment): Segment[] {
  const pieces: Segment[] = [];
  const sample = ctx.text.slice(segment.start, Math.min(segment.end, segment.start + 4096));
  const charsPerToken = sample.length / Math.max(1, ctx.tokenizer.countTokens(sample));
  const targetChars = Math.max(1, Math.floor(ctx.pieceLimit * charsPerToken * 0.9));
  let from = segment.start;
  while (from < segment.end) {
    let to = pieceEnd(ctx.text, from, Math.min(segment.end, from + targetChars));
    let tokens = ctx.tokenizer.countTokens(ctx.text.slice(from, to));
    while (tokens > ctx.pieceLimit && to - from > 1) {
      const shorter = pieceEnd(ctx.text, from, from + Math.floor((to - from) * 0.8));
      if (shorter >= to) break;
      to = shorter;
      tokens = ctx.tokenizer.countTokens(ctx.text.slice(from, to));
    }
    const strength = pieces.length === 0 ? segment.strength : BoundaryStrength.insideWord;
    pieces.push({ start: from, end: to, tokens, strength, kind: "piece" });
    from = to;
  }
  return pieces;
}

function pieceEnd(text: string, from: number, proposed: number): number {
  const snapped = snapToCharacterStart(text, proposed, from);
  return snapped > from ? snapped : Math.min(text.length, from + 1);
}
