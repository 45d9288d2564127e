/**
 * The features of one text: for every content word its own-language stem, character n-grams, the stems
 * of its compound parts, and — for queries, and with a smaller weight for passages — the stems of its
 * translations into the other language, so a German question meets an English passage (and vice versa)
 * in the same dimensions. Stop words contribute little; every word is weighted by its idf. What a word
 * adds is derived once per word and remembered (word-facts.ts).
 */
import type { EmbedPurpose } from "../embedding-provider.js";
import { decideLanguage } from "../lexicon/detect-language.js";
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";
import type { BuiltinEmbedderSettings } from "./builtin-embedder-settings.js";
import { FeatureBag } from "./feature-bag.js";
import { featureHash } from "./feature-hash.js";
import { tokenizeWords } from "./tokenize-words.js";
import {
  SYNONYM_STRIDE,
  TRANSLATION_STRIDE,
  type WordFacts,
  type WordFactsLookup,
  type WordFeatures,
} from "./word-facts.js";
import type { WordTranslator } from "./word-translator.js";

export interface FeatureContext {
  readonly settings: BuiltinEmbedderSettings;
  readonly lexicon: Lexicon;
  /** For phrases; a word's own translations come with its facts. */
  readonly translator: WordTranslator;
  readonly facts: WordFactsLookup;
}

function addNgrams(bag: FeatureBag, word: string, sizes: readonly number[], weight: number): void {
  const padded = `^${word}$`;
  let count = 0;
  for (const size of sizes) count += Math.max(0, padded.length - size + 1);
  // Each word's n-grams share one unit of frequency, so long words do not outweigh short ones.
  for (const size of sizes) {
    for (let start = 0; start + size <= padded.length; start++)
      bag.add("ngrams", featureHash(padded.slice(start, start + size)), 1 / count, weight);
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
  features: WordFeatures,
  language: LexiconLanguage,
  other: LexiconLanguage,
  translationWeight: number,
  settings: BuiltinEmbedderSettings,
): void {
  // A passage says "the" twenty times; as a signal of what it is about, once is plenty.
  const maxFrequency = features.stopword ? settings.stopwordMaxFrequency : Number.POSITIVE_INFINITY;
  bag.add(language, features.stemHash, 1, settings.stemWeight * features.weight, maxFrequency);
  if (translationWeight <= 0) return;
  const translations = features.translations;
  for (let index = 0; index < translations.length; index += TRANSLATION_STRIDE) {
    bag.add(
      other,
      translations[index] as number,
      translations[index + 1] as number,
      translationWeight * (translations[index + 2] as number),
      maxFrequency,
    );
  }
}

export function extractTextFeatures(
  text: string,
  purpose: EmbedPurpose,
  context: FeatureContext,
): FeatureBag {
  const facts = tokenizeWords(text).map(context.facts);
  return extractWordFeatures(facts, decideLanguage(facts), purpose, context);
}

/** The features of a text's words (in order) in the language the text was found to be in. */
export function extractWordFeatures(
  facts: readonly WordFacts[],
  language: LexiconLanguage,
  purpose: EmbedPurpose,
  context: FeatureContext,
): FeatureBag {
  const { settings } = context;
  const bag = new FeatureBag();
  const other: LexiconLanguage = language === "de" ? "en" : "de";
  const translationWeight =
    purpose === "query" ? settings.queryTranslationWeight : settings.passageTranslationWeight;
  for (const fact of facts) {
    const features = fact.features(language);
    if (features.weightedIdf <= 0) continue;
    const weight = features.weight;
    if (features.digits) {
      // Numbers are the same in both languages: they go to both blocks, so "1900" matches either way.
      bag.add("de", features.stemHash, 1, settings.stemWeight * weight);
      bag.add("en", features.stemHash, 1, settings.stemWeight * weight);
      continue;
    }
    addWordStems(bag, features, language, other, translationWeight, settings);
    // Off in the default settings (weight 0): then the n-grams are not even cut.
    if (settings.ngramWeight > 0)
      addNgrams(bag, fact.word, settings.ngramSizes, settings.ngramWeight * weight);
    const synonymWeight = purpose === "query" ? settings.querySynonymWeight : settings.passageSynonymWeight;
    if (synonymWeight > 0) {
      const synonyms = features.synonyms;
      for (let index = 0; index < synonyms.length; index += SYNONYM_STRIDE)
        bag.add(
          language,
          synonyms[index] as number,
          1,
          synonymWeight * weight * (synonyms[index + 1] as number),
        );
    }
    if (settings.compoundPartWeight > 0) {
      const parts = features.compoundHashes;
      for (const part of parts) bag.add("de", part, 1 / parts.length, settings.compoundPartWeight * weight);
    }
  }
  if (translationWeight > 0 && settings.phraseTranslationWeight > 0)
    addPhraseTranslations(bag, facts, language, translationWeight, context);
  return bag;
}

/**
 * Two adjacent content words the dictionary knows as one headword ("national anthem" → Nationalhymne,
 * "sign language" → Gebärdensprache, "heftige Kritik" → flak) add the phrase's translations: an English
 * phrase is often one German compound, which word-by-word translation cannot produce. Only a word that
 * starts some multi-word headword is looked at with its neighbour.
 */
function addPhraseTranslations(
  bag: FeatureBag,
  facts: readonly WordFacts[],
  language: LexiconLanguage,
  translationWeight: number,
  context: FeatureContext,
): void {
  const { settings, lexicon, translator } = context;
  const direction = language === "de" ? "de2en" : "en2de";
  const other: LexiconLanguage = language === "de" ? "en" : "de";
  for (let index = 0; index + 1 < facts.length; index++) {
    const first = facts[index] as WordFacts;
    const firstFeatures = first.features(language);
    if (!firstFeatures.startsPhrase) continue;
    const second = facts[index + 1] as WordFacts;
    const secondFeatures = second.features(language);
    if (secondFeatures.stopword || secondFeatures.digits) continue;
    const phrase = `${first.word} ${second.word}`;
    if (!lexicon.has(phrase, direction)) continue;
    const phraseIdf = Math.max(firstFeatures.idf, secondFeatures.idf);
    for (const { stem, share, idf: stemIdf } of translator.translate(phrase, language).stems) {
      const weight =
        settings.phraseTranslationWeight *
        translationWeight *
        Math.sqrt(phraseIdf * stemIdf) ** settings.idfPower;
      bag.add(other, featureHash(stem), share, weight);
    }
  }
}
