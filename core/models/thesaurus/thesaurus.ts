/** A language a thesaurus is read for: German or English (the lexicon's languages). */
export type ThesaurusLanguage = "de" | "en";

/** Which file format a thesaurus was read from. */
export type ThesaurusFormat = "openthesaurus" | "mythes";

/** One thesaurus file in use. */
export interface ThesaurusSource {
  readonly language: ThesaurusLanguage;
  readonly format: ThesaurusFormat;
  readonly path: string;
  /** Headwords (lower-cased single words and phrases) the file lists. */
  readonly headwords: number;
}

/**
 * Synonyms read at run time from the thesauri Debian installs (OpenThesaurus for German, the
 * WordNet-derived MyThes thesaurus for English; LGPL / MPL / WordNet licence: never copied into the
 * repository, ADR 0520). Headwords are looked up lower-cased.
 */
export interface Thesaurus {
  /** The files read; empty when no thesaurus was found. */
  readonly sources: readonly ThesaurusSource[];
  /** Identifies the files (paths, sizes, dates); "" when empty. Part of cache keys. */
  readonly fingerprint: string;
  /**
   * The meanings of a lower-cased word or phrase in the source's order (MyThes/WordNet: most frequent
   * sense first): each the synonyms of one sense, lower-cased, annotations such as "(ugs.)" removed,
   * the word itself and hypernyms, antonyms and related terms left out — so a meaning may be empty; it
   * still counts as a sense of the word. Empty when the word is unknown.
   */
  meanings(word: string, language: ThesaurusLanguage): readonly (readonly string[])[];
}

export const EMPTY_THESAURUS: Thesaurus = {
  sources: [],
  fingerprint: "",
  meanings: () => [],
};
