import type { Tokenizer } from "../models/embedding-provider.js";
import { isBreakingSpace, wordStarts } from "./word-boundaries.js";

export interface OverlapRequest {
  readonly text: string;
  readonly tokenizer: Tokenizer;
  /** The overlap must start after this position (the previous chunk's start). */
  readonly floor: number;
  /** End of the previous chunk; the overlap is text.slice(start, end). */
  readonly end: number;
  readonly targetTokens: number;
  /** Hard ceiling: the overlap plus the next chunk's first segment must fit into a chunk. */
  readonly limitTokens: number;
}

export interface Overlap {
  readonly start: number;
  /** Sum of the overlap's word counts (the chunk as a whole is counted again when it is emitted). */
  readonly tokens: number;
}

/** A sentence start is preferred when it lands within this fraction of the target. */
const SENTENCE_SLACK = 0.2;
/** Word starts further back than this are not considered (bounds the work inside huge whitespace-free runs). */
const MIN_SCAN_CHARS = 512;
const SCAN_CHARS_PER_TARGET_TOKEN = 24;

interface Candidate {
  readonly start: number;
  readonly tokens: number;
}

/**
 * Chooses where the next chunk starts inside the previous one: at the word start whose tail counts
 * closest to the target, or at a sentence/line start if one is within ±20 % of it. Words are counted one
 * by one walking back from the end, so the cost is about the overlap's length, not the chunk's.
 */
export function chooseOverlapStart(request: OverlapRequest): Overlap {
  const { text, tokenizer, end, targetTokens, limitTokens } = request;
  const none: Overlap = { start: end, tokens: 0 };
  if (targetTokens <= 0 || limitTokens <= 0) return none;

  const scanFrom = Math.max(
    request.floor,
    end - Math.max(MIN_SCAN_CHARS, targetTokens * SCAN_CHARS_PER_TARGET_TOKEN),
  );
  const starts = wordStarts(text, scanFrom, end);
  const candidates: Candidate[] = [];
  let tokens = 0;
  let wordEnd = end;
  for (let i = starts.length - 1; i >= 0 && tokens <= targetTokens * (1 + SENTENCE_SLACK); i--) {
    const start = starts[i] as number;
    tokens += tokenizer.countTokens(text.slice(start, wordEnd));
    wordEnd = start;
    if (tokens <= limitTokens) candidates.push({ start, tokens });
  }

  const distance = (candidate: Candidate) => Math.abs(candidate.tokens - targetTokens);
  const closest = (list: readonly Candidate[]) =>
    list.reduce<Candidate | undefined>(
      (best, c) => (best === undefined || distance(c) < distance(best) ? c : best),
      undefined,
    );
  const sentence = closest(
    candidates.filter((c) => distance(c) <= SENTENCE_SLACK * targetTokens && startsSentence(text, c.start)),
  );
  return sentence ?? closest(candidates) ?? none;
}

const TERMINATORS = new Set([".", "!", "?", "…", ":", ";", "。", "！", "？"]);
const CLOSERS = new Set(['"', "'", ")", "]", "”", "“", "’", "»", "«", "›", "‹"]);

/** Cheap test: the whitespace before `pos` contains a line break, or follows sentence-ending punctuation. */
function startsSentence(text: string, pos: number): boolean {
  let i = pos - 1;
  while (i >= 0 && isBreakingSpace(text.charCodeAt(i))) {
    if (text.charCodeAt(i) === 0x0a) return true;
    i--;
  }
  while (i >= 0 && CLOSERS.has(text.charAt(i))) i--;
  return i >= 0 && TERMINATORS.has(text.charAt(i));
}
