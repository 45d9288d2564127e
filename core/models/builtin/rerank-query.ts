import { expandQueryTerms } from "../lexicon/expand-query-terms.js";
import type { Lexicon } from "../lexicon/lexicon.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import { stemEnglishWord, stemGermanLikeIndex } from "./stem-like-index.js";
import { tokenizeWords } from "./tokenize-words.js";
import { createWordIdf } from "./word-idf.js";

/**
 * One content word of the query, as the built-in reranker matches it: any of its stems (German and
 * English Snowball, plus the stems of its dictionary translations and compound parts) in a text counts
 * as the word. `weight` is its informativeness (dictionary idf; 1 without a dictionary).
 */
export interface QueryWord {
  readonly word: string;
  readonly weight: number;
  readonly stems: ReadonlySet<string>;
}

const isStopword = (word: string) => STOPWORDS.de.has(word) || STOPWORDS.en.has(word);

/**
 * Stems are the same for every query, and candidate texts keep repeating a tenant's vocabulary: the
 * Snowball stemmers behind this were ~14 % of the service's CPU under bench:load (50 connections,
 * 10k memories). Bounded: cleared when full (≈ 50k words, a few MB).
 */
const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, readonly string[]>();

export function stemsOf(word: string): readonly string[] {
  let stems = stemCache.get(word);
  if (stems === undefined) {
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stems = [stemGermanLikeIndex(word), stemEnglishWord(word)];
    stemCache.set(word, stems);
  }
  return stems;
}

/** The query's content words in query order (repeats dropped), with their cross-lingual stems. */
export function analyzeRerankQuery(query: string, lexicon: Lexicon | undefined): QueryWord[] {
  const words = [...new Set(tokenizeWords(query).filter((w) => !isStopword(w)))];
  const idf = lexicon === undefined ? () => 1 : createWordIdf(lexicon);
  const expansions =
    lexicon === undefined ? [] : expandQueryTerms(lexicon, query, { maxTranslationsPerWord: 3 });
  return words.map((word) => {
    const stems = new Set(stemsOf(word));
    for (const e of expansions)
      if (e.from === word && e.kind !== "query") for (const s of stemsOf(e.term)) stems.add(s);
    return { word, weight: Math.max(0.05, Math.max(idf(word, "de"), idf(word, "en"))), stems };
  });
}
