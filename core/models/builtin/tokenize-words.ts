import { hasCjk, splitCjkWord } from "../../text/cjk-bigrams.js";

/**
 * Splits text into lower-cased words: runs of letters, combining marks and digits. Hyphens and
 * apostrophes separate words ("Pro-Bowl-Selektionen" → pro, bowl, selektionen), so both halves of a
 * hyphenated compound are matched like the separate words a translation would use. Chinese, Japanese
 * and Korean runs, written without spaces between words, become overlapping bigrams (ADR 0670).
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function tokenizeWords(text: string): string[] {
  const words = text.normalize("NFC").toLowerCase().match(WORD) ?? [];
  return hasCjk(text) ? words.flatMap(splitCjkWord) : words;
}
