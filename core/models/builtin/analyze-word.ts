/**
 * What the embedder needs to know about a word in its own language — its stem (of the lemma for irregular
 * forms: went → go), its idf and the stems of its compound parts — computed once per word and language and
 * remembered: a text repeats its words, a corpus its vocabulary, and every fact costs dictionary lookups
 * (decompounding tries every split).
 */
import { createBoundedMemo } from "../../../lib/bounded-memo.js";
import { decompoundGerman } from "../lexicon/decompound-german.js";
import { type Lexicon, type LexiconLanguage, languageIndex } from "../lexicon/lexicon.js";
import { stemWord } from "../lexicon/stem-word.js";
import type { WordIdf } from "./word-idf.js";

export interface WordAnalysis {
  readonly stem: string;
  readonly idf: number;
  /** Stems of a German compound's parts (Datenschutzbeauftragter → datenschutz, beauftragt); else empty. */
  readonly compoundParts: readonly string[];
}

export type WordAnalyzer = (word: string, language: LexiconLanguage) => WordAnalysis;

/** Words analysed, kept (lib/bounded-memo.ts): frequent words stay, one-off words pass through. */
const MEMO_CAPACITY = 40_000;

export function createWordAnalyzer(lexicon: Lexicon, idf: WordIdf): WordAnalyzer {
  const memo = createBoundedMemo<WordAnalysis>(MEMO_CAPACITY, 2);
  const isGermanWord = (part: string) => lexicon.has(part, "de2en");
  return (word, language) =>
    memo.get(
      word,
      // The word as the memo keeps it (its own copy, lib/own-string.ts): stems are cut from it.
      (own) => {
        const parts = language === "de" ? (decompoundGerman(own, isGermanWord) ?? []) : [];
        return {
          stem: stemWord(lexicon.lemma(own, language) ?? own, language),
          idf: idf(own, language),
          compoundParts: parts.map((part) => stemWord(part, "de")),
        };
      },
      languageIndex(language),
    );
}
