/**
 * What the embedder needs to know about a word in its own language — its stem (of the lemma for irregular
 * forms: went → go), its idf and the stems of its compound parts. Every fact costs dictionary lookups
 * (decompounding tries every split): the embedder remembers the result per word (word-facts.ts).
 */
import { decompoundWithLexicon } from "../lexicon/decompound-german.js";
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";
import { stemWord } from "../lexicon/stem-word.js";
import type { WordIdf } from "./word-idf.js";

export interface WordAnalysis {
  readonly stem: string;
  readonly idf: number;
  /** Stems of a German compound's parts (Datenschutzbeauftragter → datenschutz, beauftragt); else empty. */
  readonly compoundParts: readonly string[];
}

export type WordAnalyzer = (word: string, language: LexiconLanguage) => WordAnalysis;

export function createWordAnalyzer(lexicon: Lexicon, idf: WordIdf): WordAnalyzer {
  return (word, language) => {
    const parts = language === "de" ? (decompoundWithLexicon(word, lexicon) ?? []) : [];
    return {
      stem: stemWord(lexicon.lemma(word, language) ?? word, language),
      idf: idf(word, language),
      compoundParts: parts.map((part) => stemWord(part, "de")),
    };
  };
}
