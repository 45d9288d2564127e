/**
 * German writes as one word what a query may say in several ("Beauftragter für Datenschutz" →
 * "Datenschutzbeauftragter"), and Snowball does not split compounds. For every ordered pair of query
 * words, a compound modifier+linking element+head in the tenant's vocabulary stands in for the pair
 * (find-compound-terms.ts looks them up). The modifier is the word as written (folded like the stemmer
 * folds umlauts), the head is matched by its lexeme, since the head carries the compound's inflection.
 */
export interface CompoundPair {
  /** Folded modifier form, e.g. "datenschutz". */
  readonly prefix: string;
  /** The head word as written, e.g. "Beauftragter"; its lexeme is computed in SQL. */
  readonly head: string;
}

/** Fugenelemente between modifier and head (Verteidigung-s-minister, Sonne-n-schein). */
export const LINKING_ELEMENTS: readonly string[] = ["", "s", "es", "n", "en", "er", "e", "ns"];

const MIN_PREFIX = 4;
const MIN_HEAD = 4;
const MAX_WORDS = 8;

/** German Snowball folds ä, ö, ü to a, o, u and ß to ss; compound terms are stored that way. */
export function foldGerman(word: string): string {
  return word
    .toLowerCase()
    .replaceAll("ä", "a")
    .replaceAll("ö", "o")
    .replaceAll("ü", "u")
    .replaceAll("ß", "ss");
}

export function compoundJoinCandidates(words: readonly string[]): CompoundPair[] {
  const content = [...new Set(words.filter((w) => w.length >= MIN_PREFIX && /^\p{L}+$/u.test(w)))].slice(
    0,
    MAX_WORDS,
  );
  const pairs: CompoundPair[] = [];
  for (const modifier of content) {
    for (const head of content) {
      if (modifier !== head && head.length >= MIN_HEAD) pairs.push({ prefix: foldGerman(modifier), head });
    }
  }
  return pairs;
}

/** Whether `term` is prefix + linking element + headLexeme. */
export function isCompoundOf(term: string, prefix: string, headLexeme: string): boolean {
  if (!term.startsWith(prefix) || !term.endsWith(headLexeme)) return false;
  const link = term.slice(prefix.length, term.length - headLexeme.length);
  return term.length >= prefix.length + headLexeme.length && LINKING_ELEMENTS.includes(link);
}
