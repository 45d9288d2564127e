/** Snowball stemmers for the two languages the built-in embedder knows (`@orama/stemmers`). */
import { stemmer as stemEnglish } from "@orama/stemmers/english";
import { stemmer as stemGerman } from "@orama/stemmers/german";
import type { LexiconLanguage } from "./lexicon.js";

const COMBINING_MARKS = /\p{M}/gu;
const NON_ASCII = /[^ -~]/;

export function stemWord(word: string, language: LexiconLanguage): string {
  // The German Snowball stemmer maps umlauts to plain vowels ("läuft" → "lauft"), so Häuser meets Haus.
  const stem = language === "de" ? stemGerman(word) : stemEnglish(word);
  // Accents are dropped too: the dictionary writes Montréal and Zürich where English texts write
  // Montreal and Zurich.
  return NON_ASCII.test(stem) ? stem.normalize("NFD").replace(COMBINING_MARKS, "") : stem;
}
