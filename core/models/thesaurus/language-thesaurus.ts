/** The synonyms of one language from one file (read-openthesaurus.ts, open-mythes.ts). */
export interface LanguageThesaurus {
  /** Distinct lower-cased headwords (single words and phrases). */
  readonly headwords: number;
  /** See Thesaurus.meanings. */
  meanings(word: string): readonly (readonly string[])[];
}
