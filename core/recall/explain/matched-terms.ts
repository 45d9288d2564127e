import { wordSpans } from "../../text/unspaced-scripts.js";

/**
 * The query's BM25 lexemes that occur in a text, in the order of `terms` — each word of the text
 * stemmed as the index stems it (`stem`), or taken as is where the lexeme is the word itself (numbers,
 * names the stemmer keeps). For explanations only: computed when a recall asks for them.
 */
export function matchedTerms(
  text: string,
  terms: readonly string[],
  stem: (word: string) => string,
): string[] {
  const wanted = new Set(terms);
  const found = new Set<string>();
  for (const span of wordSpans(text)) {
    const word = span.word.toLowerCase();
    const term = wanted.has(word) ? word : stem(word);
    if (wanted.has(term)) found.add(term);
  }
  return terms.filter((t) => found.has(t));
}
