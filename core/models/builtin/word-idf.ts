/**
 * How informative a word is, in [0, 1]: an inverse document frequency over the dictionary's ≈ 65k example
 * sentences per language (a small general-language corpus we have at run time), scaled so an unseen word
 * scores 1. Stop words score 0. Without a lexicon every other word scores 1.
 */
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";

const NUMBER_IDF_BASE = 0.25;
const NUMBER_IDF_PER_DIGIT = 0.25;

export type WordIdf = (word: string, language: LexiconLanguage) => number;

const DIGITS = /^\p{N}+$/u;

export function createWordIdf(lexicon: Lexicon): WordIdf {
  return (word, language) => {
    // The examples say nothing about numbers: short ones (2, 12) are common, years and amounts are not.
    if (DIGITS.test(word)) return Math.min(1, NUMBER_IDF_BASE + NUMBER_IDF_PER_DIGIT * word.length);
    const sentences = lexicon.exampleCount[language];
    if (sentences === 0) return 1;
    // ln(1 + N/(f+1)) rather than ln(N/f): stays positive for a word in every sentence of a tiny corpus.
    const frequency = lexicon.exampleFrequency(word, language);
    return Math.log(1 + sentences / (frequency + 1)) / Math.log(1 + sentences);
  };
}
