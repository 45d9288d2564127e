/**
 * Approximates how many subword tokens a multilingual sentence-piece model (XLM-R, as in bge-m3 and e5)
 * makes of a text, so chunks sized with the built-in embedder also fit a real model later: short words are
 * one token, long words (German compounds) one per ~4 letters, Chinese, Japanese and Korean letters one
 * each, numbers one per ~3 digits, and every other visible character (punctuation, symbols) one.
 * Monotone: appending text never lowers the count.
 *
 * The pieces are those of PIECE below — a letter and the letters and marks after it, a run of number
 * characters, or one other visible character. The scan walks ASCII by character codes and asks the
 * Unicode regular expressions only where a non-ASCII character starts or continues a piece: the
 * chunker counts every text several times, and a `matchAll` over PIECE allocated a match per piece
 * (2026-12-02: a fifth of what storing a short memory allocated outside the embedder).
 */
import { countCjkLetters } from "../../text/unspaced-scripts.js";
import type { Tokenizer } from "../embedding-provider.js";

/** The definition of a piece (the test checks the scan against it). */
export const PIECE = /\p{L}[\p{L}\p{M}]*|\p{N}+|[^\s\p{L}\p{M}\p{N}]/gu;
const LETTERS_PER_TOKEN = 4;
const DIGITS_PER_TOKEN = 3;

/**
 * A piece of letters: one token per ~4 letters, but one per Chinese, Japanese or Korean letter —
 * sentence-piece models cut those about that finely, and a Chinese clause counted by 4 letters made
 * chunks three to four times the size a real model takes (ADR 0670). Monotone in the piece's length.
 */
export function letterPieceTokens(piece: string): number {
  const cjk = countCjkLetters(piece);
  return cjk.letters + Math.ceil((piece.length - cjk.units) / LETTERS_PER_TOKEN);
}

/** PIECE at exactly `lastIndex`. */
const PIECE_AT = /\p{L}[\p{L}\p{M}]*|\p{N}+|[^\s\p{L}\p{M}\p{N}]/uy;
const LETTER_AT = /\p{L}/uy;
const LETTERS_AND_MARKS_AT = /[\p{L}\p{M}]*/uy;
const NUMBERS_AT = /\p{N}*/uy;

const isAsciiLetter = (code: number) => (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
const isAsciiDigit = (code: number) => code >= 0x30 && code <= 0x39;
/** ASCII characters in JavaScript's `\s`: tab, line feed, vertical tab, form feed, carriage return, space. */
const isAsciiSpace = (code: number) => code === 0x20 || (code >= 0x09 && code <= 0x0d);

/** The end of the sticky `pattern`'s match at `from` (it matches the empty string at worst). */
function matchEnd(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(text) ? pattern.lastIndex : from;
}

export function approximateTokenCount(text: string): number {
  let count = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (isAsciiLetter(code)) {
      let end = index + 1;
      while (end < length && isAsciiLetter(text.charCodeAt(end))) end++;
      const ascii = end;
      if (end < length && text.charCodeAt(end) >= 0x80) end = matchEnd(LETTERS_AND_MARKS_AT, text, end);
      count +=
        end === ascii
          ? Math.ceil((end - index) / LETTERS_PER_TOKEN)
          : letterPieceTokens(text.slice(index, end));
      index = end;
    } else if (isAsciiDigit(code)) {
      let end = index + 1;
      while (end < length && isAsciiDigit(text.charCodeAt(end))) end++;
      if (end < length && text.charCodeAt(end) >= 0x80) end = matchEnd(NUMBERS_AT, text, end);
      count += Math.ceil((end - index) / DIGITS_PER_TOKEN);
      index = end;
    } else if (code < 0x80) {
      // ASCII punctuation, symbols and control characters are one piece each; whitespace none.
      if (!isAsciiSpace(code)) count += 1;
      index++;
    } else {
      PIECE_AT.lastIndex = index;
      if (PIECE_AT.test(text)) {
        const end = PIECE_AT.lastIndex;
        LETTER_AT.lastIndex = index;
        // A piece starting with a letter counts by its length; a number not in ASCII digits, or a
        // symbol, is one.
        count += LETTER_AT.test(text) ? letterPieceTokens(text.slice(index, end)) : 1;
        index = end;
      } else {
        // Whitespace or a mark without a letter before it: no piece; step over the whole code point.
        index += (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
      }
    }
  }
  return count;
}

export const approximateTokenizer: Tokenizer = { countTokens: approximateTokenCount };
