/**
 * The knobs of the built-in embedder. Every value shapes the vectors, so the defaults below are part of
 * the embedding space `builtin-xling-v2` (create-builtin-embedder.ts); `settingsTag` gives other values their own space id. The bench
 * (`bench/embedder-eval.ts`) varies them; docs/builtin-embedder.md records what each variant scored.
 */
export interface BuiltinEmbedderSettings {
  /** Weight of a word's own-language Snowball stem. */
  readonly stemWeight: number;
  /** Weight of character n-grams of each word (inflection and compound robustness). */
  readonly ngramWeight: number;
  readonly ngramSizes: readonly number[];
  /** Dimensions reserved for n-grams, so their many features cannot drown word matches in collisions. */
  readonly ngramDimensions: number;
  /** Dimensions each feature is spread over (count sketch, each copy × 1/√copies, own sign). */
  readonly hashCopies: number;
  /** German and English stems in separate halves of the word dimensions (see project-features.ts). */
  readonly languageBlocks: boolean;
  /** Weight of the stems of a German compound's parts, added beside the compound's own stem. */
  readonly compoundPartWeight: number;
  /** Weight of a query word's translations into the other language. */
  readonly queryTranslationWeight: number;
  /** Weight of a passage word's translations into the other language. */
  readonly passageTranslationWeight: number;
  /** Weight of a two-word phrase's translations relative to a word's (see extract-text-features.ts). */
  readonly phraseTranslationWeight: number;
  /** At most this many translated stems per word. */
  readonly maxTranslations: number;
  /** Translation shares are raised to this power and renormalised (< 1 flattens, > 1 favours the first). */
  readonly translationSharePower: number;
  /** Idf is raised to this power before weighting (> 1 sharpens the difference common/rare). */
  readonly idfPower: number;
  /** Stop words keep this fraction of their weight (0 drops them; short sentences need some of them). */
  readonly stopwordWeight: number;
  /** Cap on a stop word's summed term frequency (and its translations'). */
  readonly stopwordMaxFrequency: number;
  /** Exponent of the common-word prior when ranking translations (see rank-translations.ts). */
  readonly translationPriorExponent: number;
  /** Exponent of the bonus for translations the dictionary's examples use (see rank-translations.ts). */
  readonly cooccurrenceExponent: number;
  /** Bonus for translations spelled like the word (see cognate-similarity.ts). */
  readonly cognateBoost: number;
  /** Weight of a query word's thesaurus synonyms' stems, in its own language's block (0: none). */
  readonly querySynonymWeight: number;
  /** Weight of a passage word's thesaurus synonyms' stems (0: none). */
  readonly passageSynonymWeight: number;
  /** true: a word's synonyms share its synonym weight (split by count); false: each gets it whole. */
  readonly synonymSplit: boolean;
}

export const DEFAULT_BUILTIN_EMBEDDER_SETTINGS: BuiltinEmbedderSettings = {
  stemWeight: 1,
  ngramWeight: 0,
  ngramSizes: [4],
  ngramDimensions: 0,
  hashCopies: 4,
  languageBlocks: true,
  compoundPartWeight: 1,
  queryTranslationWeight: 1.5,
  passageTranslationWeight: 1.5,
  maxTranslations: 4,
  phraseTranslationWeight: 1,
  translationSharePower: 1,
  idfPower: 0.75,
  stopwordWeight: 0.5,
  stopwordMaxFrequency: 2,
  translationPriorExponent: 0.25,
  cooccurrenceExponent: 1,
  cognateBoost: 3,
  querySynonymWeight: 0,
  passageSynonymWeight: 0,
  synonymSplit: false,
};

/** "" when `settings` equal `base`, else a short stable hash of the values (part of the space id). */
export function settingsTag(settings: BuiltinEmbedderSettings, base: BuiltinEmbedderSettings): string {
  // Keys in the defaults' order, so the same values always give the same tag.
  const canonical = (values: BuiltinEmbedderSettings) =>
    JSON.stringify(
      Object.keys(DEFAULT_BUILTIN_EMBEDDER_SETTINGS).map(
        (key) => values[key as keyof BuiltinEmbedderSettings],
      ),
    );
  const text = canonical(settings);
  if (text === canonical(base)) return "";
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619) >>> 0;
  return hash.toString(16).padStart(8, "0");
}
