/**
 * Splits a German compound into known words ("Datenschutzbeauftragter" → datenschutz, beauftragter;
 * "Verteidigungsminister" → verteidigung, minister), so that a compound missing from the dictionary can
 * still be translated and so that "Beauftragter für Datenschutz" meets "Datenschutzbeauftragter".
 * Among all splits into known words it takes the one with the fewest parts (ties: the longest last part,
 * the head of a German compound); linking elements (Fugen-s, -es, -n, -en, -er, -e) may end a modifier.
 */
import type { Lexicon } from "./lexicon.js";

/** Shorter parts (pro-testen, auf-gaben) are more often wrong splits than real words (Zug, Uhr). */
const MIN_PART_LENGTH = 4;
const MIN_COMPOUND_LENGTH = 7;
const MAX_PARTS = 4;
const LINKING_ELEMENTS = ["s", "es", "n", "en", "er", "e", "ns"];
const HEAD_ENDINGS = ["n", "en", "e", "s", "es", "er", "ern", "em", "ns"];

export function decompoundGerman(word: string, isWord: (candidate: string) => boolean): string[] | undefined {
  if (word.length < MIN_COMPOUND_LENGTH) return undefined;
  // bestFrom(start) = fewest-part split of word.slice(start), memoised and computed only for the starts
  // a known first part reaches; a table over every start cost ≈ 25 % more, and passages' words are
  // split on the reranker's path (ADR 0660).
  const memo = new Map<number, string[] | null>();
  const bestFrom = (start: number): string[] | undefined => {
    if (start === word.length) return [];
    if (word.length - start < MIN_PART_LENGTH) return undefined;
    const known = memo.get(start);
    if (known !== undefined) return known ?? undefined;
    let chosen: string[] | undefined;
    for (let end = start + MIN_PART_LENGTH; end <= word.length; end++) {
      // The word itself is known more often than not; we want its parts, so a one-part split never counts.
      if (start === 0 && end === word.length) continue;
      const part = findPart(word.slice(start, end), end === word.length, isWord);
      if (part === undefined) continue;
      const rest = bestFrom(end);
      if (rest === undefined || rest.length + 1 > MAX_PARTS) continue;
      const candidate = [part, ...rest];
      if (chosen === undefined || isBetterSplit(candidate, chosen)) chosen = candidate;
    }
    memo.set(start, chosen ?? null);
    return chosen;
  };
  const split = bestFrom(0);
  return split !== undefined && split.length > 1 ? split : undefined;
}

/** decompoundGerman with the dictionary's German headwords as the known words. */
export function decompoundWithLexicon(word: string, lexicon: Lexicon): string[] | undefined {
  return decompoundGerman(word, (part) => lexicon.has(part, "de2en"));
}

/**
 * A known word; a modifier followed by a linking element (Verteidigung-s-minister); or, as the head, a
 * known word with a case or plural ending (Wikinger-siedlern → siedler).
 */
function findPart(
  piece: string,
  isLast: boolean,
  isWord: (candidate: string) => boolean,
): string | undefined {
  if (isWord(piece)) return piece;
  for (const ending of isLast ? HEAD_ENDINGS : LINKING_ELEMENTS) {
    if (ending.length === 0 || !piece.endsWith(ending)) continue;
    const stem = piece.slice(0, piece.length - ending.length);
    if (stem.length >= MIN_PART_LENGTH && isWord(stem)) return stem;
  }
  return undefined;
}

function isBetterSplit(candidate: readonly string[], current: readonly string[]): boolean {
  if (candidate.length !== current.length) return candidate.length < current.length;
  return (candidate.at(-1)?.length ?? 0) > (current.at(-1)?.length ?? 0);
}
