/**
 * The synonyms of one query word that are safe to search for: only when the word has few senses (a
 * word with many — "spread", "Bank" — would add the wrong sense's words as often as the right one's)
 * and only from senses whose synonym lists are short (a long list is a loose cluster, not a rewording).
 * A word that is no headword is tried as its irregular form's lemma and without common inflection
 * endings ("Symptome" → symptom), as translations are (find-translations.ts). Synonyms that contain the
 * word or are contained in it are left out.
 */
import { inflectionBases } from "../lexicon/find-translations.js";
import type { Lexicon } from "../lexicon/lexicon.js";
import type { Thesaurus, ThesaurusLanguage } from "./thesaurus.js";

export interface SynonymPolicy {
  /** A word with more senses than this gets no synonyms. */
  readonly maxMeanings: number;
  /** Senses with more synonyms than this are skipped. */
  readonly maxSynonymsPerMeaning: number;
  /** Multi-word synonyms: their content words searched with the weight split (else skipped). */
  readonly multiWordParts: boolean;
}

/**
 * Per language, because the sources differ (ADR 0520, measured with `npm run eval`): OpenThesaurus's
 * synsets are coarse, hand-made groups of everyday German — a word in up to three of them, and the
 * words of a phrase ("sich anstecken"), helped covidfaq_de. The WordNet-derived English thesaurus lists
 * a sense for every rare use and multi-word synonyms that are other things ("computer virus" for
 * "virus"); anything but monosemous words and single-word synonyms cost covidqa_en fused 0.006–0.009.
 */
export const DEFAULT_SYNONYM_POLICY: Readonly<Record<ThesaurusLanguage, SynonymPolicy>> = {
  de: { maxMeanings: 3, maxSynonymsPerMeaning: 8, multiWordParts: true },
  en: { maxMeanings: 1, maxSynonymsPerMeaning: 8, multiWordParts: false },
};

export interface FoundSynonyms {
  /** The synonyms, each once, in the thesaurus's order (senses first to last). */
  readonly synonyms: readonly string[];
  /** How many senses the word has: callers share a weight among them. */
  readonly meanings: number;
}

function meaningsOf(
  thesaurus: Thesaurus,
  lexicon: Lexicon | undefined,
  word: string,
  language: ThesaurusLanguage,
): readonly (readonly string[])[] {
  const direct = thesaurus.meanings(word, language);
  if (direct.length > 0) return direct;
  const lemma = lexicon?.lemma(word, language);
  if (lemma !== undefined) {
    const viaLemma = thesaurus.meanings(lemma, language);
    if (viaLemma.length > 0) return viaLemma;
  }
  for (const base of inflectionBases(word, language)) {
    const found = thesaurus.meanings(base, language);
    if (found.length > 0) return found;
  }
  return [];
}

export function findSynonyms(
  thesaurus: Thesaurus,
  lexicon: Lexicon | undefined,
  word: string,
  language: ThesaurusLanguage,
  policy: SynonymPolicy = DEFAULT_SYNONYM_POLICY[language],
): FoundSynonyms | undefined {
  const meanings = meaningsOf(thesaurus, lexicon, word, language);
  if (meanings.length === 0 || meanings.length > policy.maxMeanings) return undefined;
  const synonyms = new Set<string>();
  for (const meaning of meanings) {
    if (meaning.length > policy.maxSynonymsPerMeaning) continue;
    // A compound of the word ("Computervirus" for "Virus", "Krankheitssymptom") narrows it; the
    // compound handling already searches the other direction.
    for (const synonym of meaning)
      if (!synonym.includes(word) && !word.includes(synonym)) synonyms.add(synonym);
  }
  return synonyms.size === 0 ? undefined : { synonyms: [...synonyms], meanings: meanings.length };
}
