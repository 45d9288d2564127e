/**
 * A word's translations even when the word itself is not a headword: the dictionary lists lemmas and some
 * forms, texts use every form. Tried in order: the word, its irregular form's lemma (ging → gehen, went →
 * go), then the word without a common inflection ending ("defensiven" → defensiv, "sagte" → sagen,
 * "players" → player). German compounds are not split here (see decompound-german.ts).
 */
import type { Lexicon, LexiconLanguage, Translation, TranslationDirection } from "./lexicon.js";
import {
  DEFAULT_TRANSLATION_RANKING,
  rankTranslations,
  type TranslationRanking,
} from "./rank-translations.js";

/** [ending, replacement]: "sagte" minus "te" plus "en" is "sagen". First match that is a headword wins. */
const INFLECTION_ENDINGS: Readonly<Record<LexiconLanguage, ReadonlyArray<readonly [string, string]>>> = {
  de: [
    ["en", ""],
    ["n", ""],
    ["e", ""],
    ["es", ""],
    ["s", ""],
    ["er", ""],
    ["em", ""],
    ["ern", ""],
    ["te", "en"],
    ["ten", "en"],
    ["test", "en"],
    ["tet", "en"],
    ["st", "en"],
    ["t", "en"],
  ],
  en: [
    ["s", ""],
    ["es", ""],
    ["ies", "y"],
    ["ed", ""],
    ["ed", "e"],
    ["ied", "y"],
    ["ing", ""],
    ["ing", "e"],
    ["ly", ""],
    ["er", ""],
    ["est", ""],
  ],
};

/** The shortest stem an ending may leave ("es" minus "s" is not a word we want to look up). */
const MIN_STEM_LENGTH = 3;

/** The word without each common inflection ending that fits it, in the order tried ("sagte" → sagen, …). */
export function inflectionBases(word: string, language: LexiconLanguage): string[] {
  const bases: string[] = [];
  for (const [ending, replacement] of INFLECTION_ENDINGS[language]) {
    if (word.length - ending.length < MIN_STEM_LENGTH || !word.endsWith(ending)) continue;
    bases.push(word.slice(0, word.length - ending.length) + replacement);
  }
  return bases;
}

export interface FoundTranslations {
  readonly translations: readonly Translation[];
  /** "lexicon": the word is a headword; "inflection": found through its lemma or an ending. */
  readonly via: "lexicon" | "inflection";
}

export function findTranslations(
  lexicon: Lexicon,
  word: string,
  direction: TranslationDirection,
  ranking: TranslationRanking = DEFAULT_TRANSLATION_RANKING,
): FoundTranslations | undefined {
  const direct = rankTranslations(lexicon, word, direction, ranking);
  if (direct.length > 0) return { translations: direct, via: "lexicon" };
  const language: LexiconLanguage = direction === "de2en" ? "de" : "en";
  const lemma = lexicon.lemma(word, language);
  const viaLemma = lemma === undefined ? [] : rankTranslations(lexicon, lemma, direction, ranking);
  if (viaLemma.length > 0) return { translations: viaLemma, via: "inflection" };
  for (const base of inflectionBases(word, language)) {
    const translations = rankTranslations(lexicon, base, direction, ranking);
    if (translations.length > 0) return { translations, via: "inflection" };
  }
  return undefined;
}
