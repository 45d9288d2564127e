import type { Lexicon } from "../lexicon/lexicon.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import { expandQueryTerms } from "../query-terms/expand-query-terms.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import { stemsOf } from "./stem-like-index.js";
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

/** The query's content words in query order (repeats dropped), with their cross-lingual stems. */
export function analyzeRerankQuery(
  query: string,
  lexicon: Lexicon | undefined,
  thesaurus?: Thesaurus | undefined,
): QueryWord[] {
  const words = [...new Set(tokenizeWords(query).filter((w) => !isStopword(w)))];
  const idf = lexicon === undefined ? () => 1 : createWordIdf(lexicon);
  const expansions =
    lexicon === undefined
      ? []
      : expandQueryTerms(lexicon, query, {
          maxTranslationsPerWord: 3,
          paraphraseWeight: 1,
          ...(thesaurus !== undefined ? { thesaurus, synonymWeight: 0.5 } : {}),
        });
  return words.map((word) => {
    const stems = new Set(stemsOf(word));
    for (const e of expansions)
      if (e.from === word && e.kind !== "query") for (const s of stemsOf(e.term)) stems.add(s);
    return { word, weight: Math.max(0.05, Math.max(idf(word, "de"), idf(word, "en"))), stems };
  });
}
