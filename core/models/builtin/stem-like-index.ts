import { stemmer as stemEnglish } from "@orama/stemmers/english";
import { stemmer as stemGerman } from "@orama/stemmers/german";
import { createBoundedMemo } from "../../../lib/bounded-memo.js";

/**
 * Snowball stems for matching words of a text against BM25's lexemes (snippets) and query words
 * (built-in reranker). `@orama/stemmers`' German Snowball gives the same stems as PostgreSQL's
 * `german` configuration (checked on every word of the xquad_de corpus: no difference).
 */
export function stemGermanLikeIndex(word: string): string {
  return stemGerman(word);
}

export function stemEnglishWord(word: string): string {
  return stemEnglish(word);
}

/**
 * Stems are the same for every query, and candidate texts keep repeating a tenant's vocabulary: the
 * Snowball stemmers behind this were ~14 % of the service's CPU under bench:load (50 connections,
 * 10k memories) in the reranker, and the snippets of the same hits stem the same words again.
 * Bounded (lib/bounded-memo.ts): frequent words stay, one-off words pass through.
 */
const stemCache = createBoundedMemo<readonly [german: string, english: string]>(40_000);
const stemBoth = (word: string) => [stemGerman(word), stemEnglish(word)] as const;

/** [German stem, English stem] of a lower-cased word, memoised. */
export function stemsOf(word: string): readonly [german: string, english: string] {
  return stemCache.get(word, stemBoth);
}

/** stemGermanLikeIndex through the cache of stemsOf: for the hot path (snippets, explanations). */
export function cachedGermanStem(word: string): string {
  return stemsOf(word)[0];
}
