/**
 * Splits text into lower-cased words: runs of letters, combining marks and digits. Hyphens and
 * apostrophes separate words ("Pro-Bowl-Selektionen" → pro, bowl, selektionen), so both halves of a
 * hyphenated compound are matched like the separate words a translation would use.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function tokenizeWords(text: string): string[] {
  return text.normalize("NFC").toLowerCase().match(WORD) ?? [];
}
