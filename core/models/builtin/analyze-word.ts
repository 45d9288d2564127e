/**
 * What the embedder needs to know about a word in its own language — its stem (of the lemma for irregular
 * forms: went → go), its idf and the stems of its compound parts — computed once per word and language and
 * remembered: a text repeats its words, a corpus its vocabulary, and every fact costs dictionary lookups
 * (decompounding tries every split).
 */
import { decompoundGerman } from "../lexicon/decompound-german.js";
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

/** Bounds the memory of a long-running process; the cache is simply started afresh when full. */
const MEMO_LIMIT = 200_000;

export function createWordAnalyzer(lexicon: Lexicon, idf: WordIdf): WordAnalyzer {
  const memo = new Map<string, WordAnalysis>();
  const isGermanWord = (part: string) => lexicon.has(part, "de2en");
  return (word, language) => {
    const key = `${language}:${word}`;
    let analysis = memo.get(key);
    if (analysis === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      const parts = language === "de" ? (decompoundGerman(word, isGermanWord) ?? []) : [];
      analysis = {
        stem: stemWord(lexicon.lemma(word, language) ?? word, language),
        idf: idf(word, language),
        compoundParts: parts.map((part) => stemWord(part, "de")),
      };
      memo.set(key, analysis);
    }
    return analysis;
  };
}
