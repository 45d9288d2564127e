import type { Lexicon } from "../lexicon/lexicon.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import { createWordAnalyzer } from "./analyze-word.js";
import {
  type BuiltinEmbedderSettings,
  DEFAULT_BUILTIN_EMBEDDER_SETTINGS,
} from "./builtin-embedder-settings.js";
import type { FeatureContext } from "./extract-text-features.js";
import { createWordFactsLookup } from "./word-facts.js";
import { createWordIdf } from "./word-idf.js";
import { createWordTranslator } from "./word-translator.js";

export const isCrossLingual = (lexicon: Lexicon) =>
  lexicon.headwordCount.de2en + lexicon.headwordCount.en2de > 0;

/** The default settings for a lexicon (also the built-in reranker's sentence features, ADR 0630). */
export function defaultSettingsFor(lexicon: Lexicon): BuiltinEmbedderSettings {
  return {
    ...DEFAULT_BUILTIN_EMBEDDER_SETTINGS,
    // Without a dictionary nothing lands in the other language's block: give each text all dimensions.
    ...(isCrossLingual(lexicon) ? {} : { languageBlocks: false }),
  };
}

/** Everything feature extraction needs, with empty caches (also used by the bench's diagnostics). */
export function createFeatureContext(
  lexicon: Lexicon,
  settings: BuiltinEmbedderSettings,
  thesaurus?: Thesaurus,
): FeatureContext {
  const idf = createWordIdf(lexicon);
  const analyze = createWordAnalyzer(lexicon, idf);
  const translator = createWordTranslator(lexicon, idf, settings);
  return {
    settings,
    lexicon,
    translator,
    // Synonyms are looked up only when some purpose uses them (ADR 0540; off in the defaults).
    facts: createWordFactsLookup({
      settings,
      lexicon,
      analyze,
      translator,
      thesaurus: settings.querySynonymWeight > 0 || settings.passageSynonymWeight > 0 ? thesaurus : undefined,
    }),
  };
}
