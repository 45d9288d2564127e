/** A language the lexicon knows: German or English. */
export type LexiconLanguage = "de" | "en";

/** A language as a number (de 0, en 1): the key space of the per-word memos (lib/bounded-memo.ts). */
export const languageIndex = (language: LexiconLanguage): 0 | 1 => (language === "de" ? 0 : 1);

/** Which way a word is translated. */
export type TranslationDirection = "de2en" | "en2de";

/** One translation of a headword; weights of one headword's translations sum to 1 (best first). */
export interface Translation {
  readonly text: string;
  readonly weight: number;
  /** In how many of the dictionary's example sentence pairs the headword and this translation co-occur. */
  readonly examples: number;
}

/**
 * German↔English word translations read at run time from the installed FreeDict dictionaries (GPL/AGPL:
 * never copied into the repository). Headwords are looked up lower-cased; multi-word headwords
 * ("vereinigte staaten") are kept too.
 */
export interface Lexicon {
  /** Number of headwords per direction; 0 when the dictionaries were not found. */
  readonly headwordCount: Readonly<Record<TranslationDirection, number>>;
  /** Number of distinct example sentences per language (the base for `exampleFrequency`). */
  readonly exampleCount: Readonly<Record<LexiconLanguage, number>>;
  /** Identifies the dictionary files this lexicon was read from (sizes and dates); "" when empty. */
  readonly fingerprint: string;
  /** Translations of a lower-cased word or phrase, best first; empty when unknown. */
  translate(word: string, direction: TranslationDirection): readonly Translation[];
  /** Whether the word is a headword in the given direction's source language. */
  has(word: string, direction: TranslationDirection): boolean;
  /** Whether a multi-word headword in the given direction starts with this word ("national anthem"). */
  startsPhrase(word: string, direction: TranslationDirection): boolean;
  /**
   * In how many of the dictionary's example sentences the lower-cased word occurs: a small general-language
   * corpus, used as a document frequency where no corpus statistics exist (the built-in embedder's idf).
   */
  exampleFrequency(word: string, language: LexiconLanguage): number;
  /** The dictionary form of an irregular inflected form ("went" → "go", "ging" → "gehen"), if known. */
  lemma(word: string, language: LexiconLanguage): string | undefined;
}
