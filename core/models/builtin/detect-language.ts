/**
 * Guesses whether a text is German or English: by its function words and umlauts, and — when those do not
 * settle it, as in a short query or a single compound — by which dictionary knows its words. Decided per
 * text, not per word, because single words are ambiguous ("die", "will", "also") while a sentence's
 * function words rarely are. A word neither dictionary knows but that splits into German words
 * ("Datenschutzbeauftragter") counts as German. English wins a tie.
 */

import { decompoundGerman } from "../lexicon/decompound-german.js";
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";
import { STOPWORDS } from "../lexicon/stopwords.js";

const GERMAN_LETTERS = /[äöüß]/;
/** A margin of function words this large is decisive; below it the dictionary is asked as well. */
const CLEAR_MARGIN = 2;
const DICTIONARY_VOTE = 0.5;

export function detectLanguage(words: readonly string[], lexicon: Lexicon): LexiconLanguage {
  let german = 0;
  let english = 0;
  for (const word of words) {
    if (STOPWORDS.de.has(word)) german++;
    if (STOPWORDS.en.has(word)) english++;
    if (GERMAN_LETTERS.test(word)) german += 0.5;
  }
  if (Math.abs(german - english) < CLEAR_MARGIN) {
    for (const word of words) {
      const isGerman = lexicon.has(word, "de2en");
      const isEnglish = lexicon.has(word, "en2de");
      if (isGerman && !isEnglish) german += DICTIONARY_VOTE;
      if (isEnglish && !isGerman) english += DICTIONARY_VOTE;
      if (
        !isGerman &&
        !isEnglish &&
        decompoundGerman(word, (part) => lexicon.has(part, "de2en")) !== undefined
      ) {
        german += DICTIONARY_VOTE;
      }
    }
  }
  return german > english ? "de" : "en";
}
