/**
 * The features of one text: for every content word its own-language stem, character n-grams, the stems
 * of its compound parts, and — for queries, and with a smaller weight for passages — the stems of its
 * translations into the other language, so a German question meets an English passage (and vice versa)
 * in the same dimensions. Stop words contribute nothing; every word is weighted by its idf.
 */
import type { EmbedPurpose } from "../embedding-provider.js";
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import type { WordAnalysis, WordAnalyzer } from "./analyze-word.js";
import type { BuiltinEmbedderSettings } from "./builtin-embedder-settings.js";
import { detectLanguage } from "./detect-language.js";
import { FeatureBag } from "./feature-bag.js";
import { tokenizeWords } from "./tokenize-words.js";
import type { WordIdf } from "./word-idf.js";
import type { WordTranslator } from "./word-translator.js";

export interface FeatureContext {
  readonly settings: BuiltinEmbedderSettings;
  readonly lexicon: Lexicon;
  readonly idf: WordIdf;
  readonly analyze: WordAnalyzer;
  readonly translator: WordTranslator;
}

const DIGITS = /^\p{N}+$/u;

function addNgrams(bag: FeatureBag, word: string, sizes: readonly number[], weight: number): void {
  const padded = `^${word}$`;
  let count = 0;
  for (const size of sizes) count += Math.max(0, padded.length - size + 1);
  // Each word's n-grams share one unit of frequency, so long words do not outweigh short ones.
  for (const size of sizes) {
    for (let start = 0; start + size <= padded.length; start++)
      bag.add("ngrams", padded.slice(start, start + size), 1 / count, weight);
  }
}

/**
 * Adds a word's own stem (to its language's block) and its translations' stems (to the other
 * language's block). The two never meet in one map — different blocks — and a translation's stems are
 * distinct (word-translator.ts keeps one entry per stem), so each feature is added exactly once, in
 * this order: own stem, then the translations as ranked.
 */
function addWordStems(
  bag: FeatureBag,
  analysis: WordAnalysis,
  word: string,
  language: LexiconLanguage,
  wordIdf: number,
  translationWeight: number,
  maxFrequency: number,
  context: FeatureContext,
): void {
  const { settings, translator } = context;
  const idfPower = settings.idfPower;
  const weight = wordIdf ** idfPower;
  bag.add(language, analysis.stem, 1, settings.stemWeight * weight, maxFrequency);
  if (translationWeight <= 0) return;
  const other: LexiconLanguage = language === "de" ? "en" : "de";
  const translated = translator.translate(word, language).stems;
  const power = settings.translationSharePower;
  let total = 0;
  for (const { share } of translated) total += share ** power;
  for (const { stem, share, idf } of translated) {
    // The geometric mean of both idfs: a rare word's translation to a common word ("Gefecht" → "fight")
    // still counts, a common word's rare translation does not dominate.
    bag.add(
      other,
      stem,
      share ** power / total,
      translationWeight * Math.sqrt(wordIdf * idf) ** idfPower,
      maxFrequency,
    );
  }
}

export function extractTextFeatures(
  text: string,
  purpose: EmbedPurpose,
  context: FeatureContext,
): FeatureBag {
  const { settings, lexicon } = context;
  const bag = new FeatureBag();
  const words = tokenizeWords(text);
  const language = detectLanguage(words, lexicon);
  const translationWeight =
    purpose === "query" ? settings.queryTranslationWeight : settings.passageTranslationWeight;
  const stopwords = STOPWORDS[language];
  const idfPower = settings.idfPower;
  for (const word of words) {
    const isStopword = stopwords.has(word);
    const analysis = context.analyze(word, language);
    const wordIdf = analysis.idf * (isStopword ? settings.stopwordWeight : 1);
    if (wordIdf <= 0) continue;
    // A passage says "the" twenty times; as a signal of what it is about, once is plenty.
    const maxFrequency = isStopword ? settings.stopwordMaxFrequency : Number.POSITIVE_INFINITY;
    const weight = wordIdf ** idfPower;
    if (DIGITS.test(word)) {
      // Numbers are the same in both languages: they go to both blocks, so "1900" matches either way.
      bag.add("de", word, 1, settings.stemWeight * weight);
      bag.add("en", word, 1, settings.stemWeight * weight);
      continue;
    }
    addWordStems(bag, analysis, word, language, wordIdf, translationWeight, maxFrequency, context);
    // Off in the default settings (weight 0): then the n-grams are not even cut.
    if (settings.ngramWeight > 0) addNgrams(bag, word, settings.ngramSizes, settings.ngramWeight * weight);
    if (settings.compoundPartWeight > 0) {
      const parts = analysis.compoundParts;
      for (const part of parts) bag.add("de", part, 1 / parts.length, settings.compoundPartWeight * weight);
    }
  }
  if (translationWeight > 0 && settings.phraseTranslationWeight > 0)
    addPhraseTranslations(bag, words, language, translationWeight, context);
  return bag;
}

/**
 * Two adjacent content words the dictionary knows as one headword ("national anthem" → Nationalhymne,
 * "sign language" → Gebärdensprache, "heftige Kritik" → flak) add the phrase's translations: an English
 * phrase is often one German compound, which word-by-word translation cannot produce.
 */
function addPhraseTranslations(
  bag: FeatureBag,
  words: readonly string[],
  language: LexiconLanguage,
  translationWeight: number,
  context: FeatureContext,
): void {
  const { settings, idf, lexicon, translator } = context;
  const direction = language === "de" ? "de2en" : "en2de";
  const other: LexiconLanguage = language === "de" ? "en" : "de";
  const stopwords = STOPWORDS[language];
  const isContent = (word: string | undefined): word is string =>
    word !== undefined && !stopwords.has(word) && !DIGITS.test(word);
  for (let index = 0; index + 1 < words.length; index++) {
    const first = words[index];
    const second = words[index + 1];
    if (!isContent(first) || !isContent(second)) continue;
    const phrase = `${first} ${second}`;
    if (!lexicon.has(phrase, direction)) continue;
    const phraseIdf = Math.max(idf(first, language), idf(second, language));
    for (const { stem, share, idf: stemIdf } of translator.translate(phrase, language).stems) {
      const weight =
        settings.phraseTranslationWeight *
        translationWeight *
        Math.sqrt(phraseIdf * stemIdf) ** settings.idfPower;
      bag.add(other, stem, share, weight);
    }
  }
}
