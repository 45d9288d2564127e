import type { BlockKind } from "./markdown-blocks.js";

/**
 * A piece of the text the packer places whole: a Markdown block, or — when a block has to be divided — a
 * list item, sentence, line, word, or (only for a word longer than a chunk) a piece of a word. Segments
 * tile the text; each carries its token count and how good a place its start is to end a chunk.
 */
export interface Segment {
  readonly start: number;
  readonly end: number;
  /** Token count; +Infinity for a block too long to fit into any chunk, which is divided uncounted. */
  readonly tokens: number;
  /** Quality of the boundary at `start` as a chunk end (see `BoundaryStrength`); higher is better. */
  readonly strength: number;
  readonly kind: SegmentKind;
}

export type SegmentKind = BlockKind | "item" | "sentence" | "line" | "word" | "subword" | "piece";

/**
 * Ranked places to end a chunk. Cutting right after a heading is almost as bad as cutting a word: the
 * heading would be separated from the text it introduces.
 */
export const BoundaryStrength = {
  majorHeading: 10,
  heading: 9,
  block: 7,
  item: 6,
  sentence: 5,
  line: 4,
  word: 2,
  afterHeading: 1,
  insideWord: 0,
} as const;
