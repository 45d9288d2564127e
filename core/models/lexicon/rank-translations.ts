/**
 * A word's translations ranked for retrieval: the dictionary's score times a prior for words that are
 * common in the target language, one for translations the dictionary's examples use, and a bonus for
 * cognates,
 *   P(t | w) ∝ score(w, t) · (1 + f(t))^priorExponent · (1 + c(w, t))^cooccurrenceExponent
 *             · (1 + cognateBoost · similarity(w, t)),
 * where f counts the example sentences containing t (its rarest content word, for a phrase) and c the
 * example sentence pairs in which w and t occur together. Dictionaries
 * list every sense alike — "say" as Mitspracherecht (a say in the matter) before sagen — while texts mostly
 * use the common sense; and a translation spelled like the word (Kabarett/cabaret, Universität/university)
 * is nearly always the right one, however rare it is.
 */
import { cognateSimilarity } from "./cognate-similarity.js";
import type { Lexicon, Translation, TranslationDirection } from "./lexicon.js";
import { STOPWORDS } from "./stopwords.js";

export interface TranslationRanking {
  readonly priorExponent: number;
  readonly cooccurrenceExponent: number;
  readonly cognateBoost: number;
}

export const DEFAULT_TRANSLATION_RANKING: TranslationRanking = {
  priorExponent: 0.25,
  cooccurrenceExponent: 1,
  cognateBoost: 3,
};

function targetFrequency(lexicon: Lexicon, text: string, direction: TranslationDirection): number {
  const language = direction === "de2en" ? "en" : "de";
  const words = text.split(/[\s/-]+/).filter((word) => word.length > 0);
  const content = words.filter((word) => !STOPWORDS[language].has(word));
  let rarest = Number.POSITIVE_INFINITY;
  for (const word of content.length > 0 ? content : words) {
    rarest = Math.min(rarest, lexicon.exampleFrequency(word, language));
  }
  return Number.isFinite(rarest) ? rarest : 0;
}

export function rankTranslations(
  lexicon: Lexicon,
  word: string,
  direction: TranslationDirection,
  ranking: TranslationRanking = DEFAULT_TRANSLATION_RANKING,
): Translation[] {
  const scored = lexicon.translate(word, direction).map(({ text, weight, examples }) => ({
    text,
    examples,
    weight:
      weight *
      (1 + targetFrequency(lexicon, text, direction)) ** ranking.priorExponent *
      (1 + examples) ** ranking.cooccurrenceExponent *
      (1 + ranking.cognateBoost * cognateSimilarity(word, text)),
  }));
  const total = scored.reduce((sum, { weight }) => sum + weight, 0);
  if (total <= 0) return [];
  return scored
    .map(({ text, weight, examples }) => ({ text, weight: weight / total, examples }))
    .sort((left, right) => right.weight - left.weight || (left.text < right.text ? -1 : 1));
}
