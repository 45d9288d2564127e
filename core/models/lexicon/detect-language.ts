/**
 * Guesses whether a text is German or English: by its function words and umlauts, and — when those do not
 * settle it, as in a short query or a single compound — by which dictionary knows its words. Decided per
 * text, not per word, because single words are ambiguous ("die", "will", "also") while a sentence's
 * function words rarely are. A word neither dictionary knows but that splits into German words
 * ("Datenschutzbeauftragter") counts as German. English wins a tie.
 */

import { decompoundWithLexicon } from "./decompound-german.js";
import type { Lexicon, LexiconLanguage } from "./lexicon.js";
import { STOPWORDS } from "./stopwords.js";

const GERMAN_LETTERS = /[äöüß]/;
/** A margin of function words this large is decisive; below it the dictionary is asked as well. */
const CLEAR_MARGIN = 2;
const DICTIONARY_VOTE = 0.5;

/** What detection knows of one word; the embedder's word facts (word-facts.ts) keep it per word. */
export interface LanguageClues {
  readonly germanStopword: boolean;
  readonly englishStopword: boolean;
  readonly germanLetters: boolean;
  /** 1 German, −1 English, 0 undecided — by the dictionaries; asked only when function words do not settle it. */
  dictionaryVote(): number;
}

/** The dictionaries' vote on one word (`LanguageClues.dictionaryVote`). */
export function dictionaryVote(word: string, lexicon: Lexicon): number {
  const isGerman = lexicon.has(word, "de2en");
  const isEnglish = lexicon.has(word, "en2de");
  if (isGerman !== isEnglish) return isGerman ? 1 : -1;
  if (isGerman) return 0;
  return decompoundWithLexicon(word, lexicon) !== undefined ? 1 : 0;
}

export function languageClues(word: string, lexicon: Lexicon): LanguageClues {
  return {
    germanStopword: STOPWORDS.de.has(word),
    englishStopword: STOPWORDS.en.has(word),
    germanLetters: GERMAN_LETTERS.test(word),
    dictionaryVote: () => dictionaryVote(word, lexicon),
  };
}

/** The language of a text whose words gave these clues. */
export function decideLanguage(words: readonly LanguageClues[]): LexiconLanguage {
  let german = 0;
  let english = 0;
  for (const word of words) {
    if (word.germanStopword) german++;
    if (word.englishStopword) english++;
    if (word.germanLetters) german += 0.5;
  }
  if (Math.abs(german - english) < CLEAR_MARGIN) {
    for (const word of words) {
      const vote = word.dictionaryVote();
      if (vote > 0) german += DICTIONARY_VOTE;
      else if (vote < 0) english += DICTIONARY_VOTE;
    }
  }
  return german > english ? "de" : "en";
}

export function detectLanguage(words: readonly string[], lexicon: Lexicon): LexiconLanguage {
  return decideLanguage(words.map((word) => languageClues(word, lexicon)));
}
