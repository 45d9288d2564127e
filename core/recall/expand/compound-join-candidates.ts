import { STOPWORDS } from "../../models/lexicon/stopwords.js";

/**
 * German writes as one word what a query may say in several ("Beauftragter für Datenschutz" →
 * "Datenschutzbeauftragter"), and Snowball does not split compounds. For every ordered pair of query
 * words, a compound modifier+linking element+head in the tenant's vocabulary stands in for the pair
 * (find-compound-terms.ts looks them up). The modifier is the word as written (folded like the stemmer
 * folds umlauts), the head is matched by its lexeme, since the head carries the compound's inflection.
 */
export interface CompoundPair {
  /** Folded modifier form, e.g. "datenschutz" (or "schul" for Schule: the -e drops in Schulbus). */
  readonly prefix: string;
  /** The head word as written, e.g. "Beauftragter"; its lexeme is computed in SQL. */
  readonly head: string;
}

/** Fugenelemente between modifier and head (Verteidigung-s-minister, Sonne-n-schein). */
export const LINKING_ELEMENTS: readonly string[] = ["", "s", "es", "n", "en", "er", "e", "ns"];

const MIN_PREFIX = 4;
const MIN_HEAD = 3;
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
  // Function words join nothing ("viele", "wurde"), and each pair costs an index range scan.
  const isContent = (w: string) =>
    w.length >= MIN_HEAD && /^\p{L}+$/u.test(w) && !STOPWORDS.de.has(w.toLowerCase());
  const content = [...new Set(words.filter(isContent))].slice(0, MAX_WORDS);
  const pairs: CompoundPair[] = [];
  for (const modifier of content) {
    const folded = foldGerman(modifier);
    if (folded.length < MIN_PREFIX) continue;
    // A modifier ending in -e often drops it in the compound (Schule → Schulbus, Kirche → Kirchturm).
    const prefixes =
      folded.endsWith("e") && folded.length > MIN_PREFIX ? [folded, folded.slice(0, -1)] : [folded];
    for (const head of content) {
      if (modifier === head || head.length < MIN_HEAD) continue;
      for (const prefix of prefixes) pairs.push({ prefix, head });
    }
  }
  return pairs;
}

/**
 * Whether `term` is prefix + linking element + head. The head part is the head's own lexeme, or — since
 * Snowball may strip a compound's ending further than the short word's (Feier → feier, but
 * Geburtstagsfeier → geburtstagsfei) — a start of the folded head word of at least MIN_HEAD letters.
 */
export function isCompoundOf(term: string, prefix: string, headLexeme: string, headWord: string): boolean {
  if (!term.startsWith(prefix)) return false;
  const folded = foldGerman(headWord);
  for (const link of LINKING_ELEMENTS) {
    if (!term.startsWith(link, prefix.length)) continue;
    const rest = term.slice(prefix.length + link.length);
    if (rest === headLexeme || (rest.length >= MIN_HEAD && folded.startsWith(rest))) return true;
  }
  return false;
}
