/**
 * How often a German and an English word occur together in the dictionary's example sentence pairs
 * ("Die Geschäfte gehen gut." – "Business is doing well."): ≈ 73k aligned pairs that show which of a
 * word's many listed translations is used in running text. Counted on Snowball stems of content words,
 * so "sagte … said" counts for sagen/say.
 */
import type { LexiconLanguage } from "./lexicon.js";
import { stemWord } from "./stem-word.js";
import { STOPWORDS } from "./stopwords.js";

const WORD = /[\p{L}\p{M}]+/gu;

export type CooccurrenceCount = (german: string, english: string) => number;

export function countExampleCooccurrences(pairs: Iterable<readonly [string, string]>): CooccurrenceCount {
  const stems = new Map<string, string>();
  const stemsOf = (text: string, language: LexiconLanguage): Set<string> => {
    const result = new Set<string>();
    for (const word of text.toLowerCase().match(WORD) ?? []) {
      if (STOPWORDS[language].has(word)) continue;
      const key = `${language}:${word}`;
      let stem = stems.get(key);
      if (stem === undefined) {
        stem = stemWord(word, language);
        stems.set(key, stem);
      }
      result.add(stem);
    }
    return result;
  };
  const counts = new Map<string, number>();
  for (const [german, english] of pairs) {
    const englishStems = stemsOf(english, "en");
    for (const germanStem of stemsOf(german, "de")) {
      for (const englishStem of englishStems) {
        const key = `${germanStem}|${englishStem}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  // A phrase counts as often as its best-attested pair of words.
  return (german, english) => {
    let best = 0;
    const englishStems = stemsOf(english, "en");
    for (const germanStem of stemsOf(german, "de")) {
      for (const englishStem of englishStems)
        best = Math.max(best, counts.get(`${germanStem}|${englishStem}`) ?? 0);
    }
    return best;
  };
}
