import { stemmer as stemEnglish } from "@orama/stemmers/english";
import { stemmer as stemGerman } from "@orama/stemmers/german";

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
