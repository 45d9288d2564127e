import type { Tokenizer } from "../models/embedding-provider.js";
import type { Chunk } from "./chunk.js";
import { type MarkdownBlock, splitMarkdownBlocks } from "./markdown-blocks.js";
import { packSegments } from "./pack-segments.js";
import { BoundaryStrength, type Segment } from "./segment.js";

export type { Chunk } from "./chunk.js";

export interface ChunkTextOptions {
  /** The embedding model's own tokenizer (spec: chunk size is counted in the model's tokens). */
  readonly tokenizer: Tokenizer;
  /** Upper bound per chunk, overlap included. Leave room for the model's special tokens and prefixes. */
  readonly maxTokens?: number;
  /** Target size of the tail of one chunk repeated at the start of the next; below maxTokens / 2. */
  readonly overlapTokens?: number;
  /**
   * Locale for sentence segmentation. ICU's sentence rules are the same for German and English (no
   * abbreviation lists are applied either way), so the default "de" serves both.
   */
  readonly locale?: string;
}

/** Spec, sizes table: "about 500 tokens, 50 tokens overlap". */
export const DEFAULT_MAX_TOKENS = 500;
export const DEFAULT_OVERLAP_TOKENS = 50;

/**
 * Splits a (Markdown) document into overlapping chunks of at most `maxTokens` tokens.
 *
 * - Cuts between Markdown blocks first (headings strongest, never right after a heading), then between
 *   list items, sentences (Intl.Segmenter), lines, and words. Code blocks, lists and tables that fit into
 *   a chunk are kept whole, even if that ends the chunk before it is half full.
 * - Every chunk after the first starts with about `overlapTokens` tokens of the previous chunk, beginning
 *   at a word start (a sentence start if one is within ±20 %).
 * - Chunk boundaries never fall inside a whitespace-delimited word. The one exception is a single run
 *   without whitespace longer than `maxTokens - overlapTokens` tokens (a base64 blob, a minified line):
 *   it is cut at Intl word-segmenter boundaries or, failing those, at character boundaries.
 * - Chunks cover the text from offset 0 to its end; consecutive chunks overlap or touch. A text that is
 *   empty or only whitespace has no chunks.
 */
export function chunkText(text: string, options: ChunkTextOptions): Chunk[] {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const overlapTokens = options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 2) {
    throw new RangeError(`maxTokens must be an integer of at least 2, got ${maxTokens}`);
  }
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens * 2 >= maxTokens) {
    throw new RangeError(`overlapTokens must be an integer in [0, maxTokens / 2), got ${overlapTokens}`);
  }
  if (!/\S/u.test(text)) return [];

  const locale = options.locale ?? "de";
  const tokenizer = options.tokenizer;
  const minFill = Math.ceil(maxTokens / 2);
  const segments = blockSegments(text, splitMarkdownBlocks(text), tokenizer, maxTokens);
  return packSegments(
    {
      text,
      tokenizer,
      ...segmentersFor(locale),
      pieceLimit: maxTokens - overlapTokens,
      maxTokens,
      overlapTokens,
      limits: {
        minFill,
        keepWholeMin: Math.min(minFill, Math.max(Math.ceil(maxTokens / 4), 2 * overlapTokens)),
      },
    },
    segments,
  );
}

/**
 * Segmenters are immutable and reusable; building the two took about as long as chunking a short
 * memory itself (≈ 40 µs per call, 2026-12-02), so each locale's pair is built once.
 */
const segmenters = new Map<string, { sentenceSegmenter: Intl.Segmenter; wordSegmenter: Intl.Segmenter }>();

function segmentersFor(locale: string) {
  let pair = segmenters.get(locale);
  if (!pair) {
    pair = {
      sentenceSegmenter: new Intl.Segmenter(locale, { granularity: "sentence" }),
      wordSegmenter: new Intl.Segmenter(locale, { granularity: "word" }),
    };
    segmenters.set(locale, pair);
  }
  return pair;
}

/**
 * No tokenizer of a text model averages anywhere near this many characters per token, so a longer block
 * cannot fit into a chunk and is divided without being counted first — counting is most of the chunker's
 * cost. If the assumption were wrong the block would merely be divided more finely than necessary.
 */
const MAX_CHARS_PER_TOKEN = 32;

function blockSegments(
  text: string,
  blocks: readonly MarkdownBlock[],
  tokenizer: Tokenizer,
  maxTokens: number,
): Segment[] {
  return blocks.map((block, index) => ({
    start: block.start,
    end: block.end,
    tokens:
      block.end - block.start > maxTokens * MAX_CHARS_PER_TOKEN
        ? Number.POSITIVE_INFINITY
        : tokenizer.countTokens(text.slice(block.start, block.end)),
    strength: blockStartStrength(block, blocks[index - 1]),
    kind: block.kind,
  }));
}

function blockStartStrength(block: MarkdownBlock, previous: MarkdownBlock | undefined): number {
  if (block.kind === "heading") {
    return block.headingLevel <= 2 ? BoundaryStrength.majorHeading : BoundaryStrength.heading;
  }
  return previous?.kind === "heading" ? BoundaryStrength.afterHeading : BoundaryStrength.block;
}
