/** Wraps the lexicon's tables in the `Lexicon` interface; also the empty lexicon used when none is installed. */
import { createBoundedMemo } from "../../../lib/bounded-memo.js";
import { type LexiconLookups, RECORD_SEPARATOR, UNIT_SEPARATOR } from "./build-lexicon-tables.js";
import { type Lexicon, languageIndex, type Translation } from "./lexicon.js";

function decodeTranslations(value: string | undefined): Translation[] {
  if (value === undefined || value.length === 0) return [];
  const translations: Translation[] = [];
  for (const record of value.split(RECORD_SEPARATOR)) {
    const [text, weight, examples] = record.split(UNIT_SEPARATOR);
    const parsedWeight = Number(weight);
    if (text !== undefined && text.length > 0 && Number.isFinite(parsedWeight)) {
      translations.push({ text, weight: parsedWeight, examples: Number(examples ?? 0) || 0 });
    }
  }
  return translations;
}

/** Frequencies kept (lib/bounded-memo.ts): common words stay, one-off words pass through. */
const FREQUENCY_MEMO_CAPACITY = 40_000;

export function createLexicon(tables: LexiconLookups, fingerprint: string): Lexicon {
  // Translation ranking asks for the same common words' frequencies over and over.
  const frequencies = createBoundedMemo<number>(FREQUENCY_MEMO_CAPACITY, 2);
  const exampleFrequency = (word: string, language: "de" | "en"): number =>
    frequencies.get(
      word,
      () => Number(tables.exampleFrequency[language].get(word) ?? 0),
      languageIndex(language),
    );
  return {
    headwordCount: { de2en: tables.translations.de2en.size, en2de: tables.translations.en2de.size },
    exampleCount: tables.exampleCount,
    fingerprint,
    translate: (word, direction) => decodeTranslations(tables.translations[direction].get(word)),
    has: (word, direction) => tables.translations[direction].has(word),
    startsPhrase: (word, direction) => tables.translations[direction].hasKeyStartingWith(`${word} `),
    exampleFrequency,
    lemma: (word, language) => tables.lemmas[language].get(word),
  };
}

export function createEmptyLexicon(): Lexicon {
  return {
    headwordCount: { de2en: 0, en2de: 0 },
    exampleCount: { de: 0, en: 0 },
    fingerprint: "",
    translate: () => [],
    has: () => false,
    startsPhrase: () => false,
    exampleFrequency: () => 0,
    lemma: () => undefined,
  };
}
