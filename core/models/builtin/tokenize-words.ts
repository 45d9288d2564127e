import { hasUnspacedScript, splitUnspacedWord } from "../../text/unspaced-scripts.js";

/**
 * Splits text into lower-cased words: runs of letters, combining marks and digits. Hyphens and
 * apostrophes separate words ("Pro-Bowl-Selektionen" → pro, bowl, selektionen), so both halves of a
 * hyphenated compound are matched like the separate words a translation would use. Scripts written
 * without spaces between words are split too (ADR 0670): Chinese, Japanese and Korean runs into
 * overlapping bigrams, Thai, Lao, Khmer and Burmese runs into their dictionary words.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function tokenizeWords(text: string): string[] {
  const words = text.normalize("NFC").toLowerCase().match(WORD) ?? [];
  return hasUnspacedScript(text) ? words.flatMap(splitUnspacedWord) : words;
}
