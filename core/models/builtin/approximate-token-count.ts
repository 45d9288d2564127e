/**
 * Approximates how many subword tokens a multilingual sentence-piece model (XLM-R, as in bge-m3 and e5)
 * makes of a text, so chunks sized with the built-in embedder also fit a real model later: short words are
 * one token, long words (German compounds) one per ~4 letters, numbers one per ~3 digits, and every other
 * visible character (punctuation, symbols) one. Monotone: appending text never lowers the count.
 */
import type { Tokenizer } from "../embedding-provider.js";

const PIECE = /\p{L}[\p{L}\p{M}]*|\p{N}+|[^\s\p{L}\p{M}\p{N}]/gu;
const LETTERS_PER_TOKEN = 4;
const DIGITS_PER_TOKEN = 3;

export function approximateTokenCount(text: string): number {
  let count = 0;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    const first = piece.codePointAt(0) ?? 0;
    if (first >= 0x30 && first <= 0x39) count += Math.ceil(piece.length / DIGITS_PER_TOKEN);
    else if (/\p{L}/u.test(piece)) count += Math.ceil(piece.length / LETTERS_PER_TOKEN);
    else count += 1;
  }
  return count;
}

export const approximateTokenizer: Tokenizer = { countTokens: approximateTokenCount };
