/**
 * The built-in offline embedder, the product's embedded default (ingest issue 2(c)): signed feature
 * hashing of stems, n-grams, compound parts and dictionary translations into 1024 dimensions.
 * Deterministic (same text, same vector, on every machine with the same dictionary), no model weights.
 * Construction takes a plain options object and loads asynchronously, so a worker thread can build its own.
 */
import { createTimeSlicedLane } from "../../../lib/time-sliced-lane.js";
import type { EmbeddingProvider, EmbedPurpose } from "../embedding-provider.js";
import { STORED_VECTOR_DIM } from "../embedding-provider.js";
import { createEmptyLexicon } from "../lexicon/create-lexicon.js";
import type { Lexicon } from "../lexicon/lexicon.js";
import { type LoadLexiconOptions, loadLexicon } from "../lexicon/load-lexicon.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import { approximateTokenizer } from "./approximate-token-count.js";
import { type BuiltinEmbedderSettings, settingsTag } from "./builtin-embedder-settings.js";
import { createFeatureContext, defaultSettingsFor, isCrossLingual } from "./create-feature-context.js";
import { extractTextFeatures } from "./extract-text-features.js";
import { blockLayout, projectFeatures } from "./project-features.js";

/** Names the vector space; bump the version whenever the vectors of the default settings change. */
export const BUILTIN_EMBEDDER_ID = "builtin-xling-v2";

export interface BuiltinEmbedderOptions {
  /** Where to read the FreeDict dictionaries (and cache them); `false` embeds without a dictionary. */
  readonly lexicon?: LoadLexiconOptions | false;
  /** Experiments only: other values give another embedding space id. */
  readonly settings?: Partial<BuiltinEmbedderSettings>;
}

export interface BuiltinEmbedder extends EmbeddingProvider {
  /** Whether dictionary features are active (false when the dictionaries are absent or disabled). */
  readonly crossLingual: boolean;
  /** One line for the log when the dictionary could not be used as configured. */
  readonly lexiconWarning?: string;
  readonly lexiconLoadMs: number;
}

/**
 * The longest the embedder holds the thread before the event loop gets a turn. Concurrent calls share
 * one lane (lib/time-sliced-lane.ts): 64 concurrent writes' embeddings used to run back to back and
 * hold their own transaction's database answers for 20–30 ms.
 */
const SLICE_MS = 4;

function shortHash(text: string): string {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619) >>> 0;
  return hash.toString(16).padStart(8, "0").slice(0, 6);
}

/** Builds the embedder around a lexicon already in memory (tests, the evaluation bench). */
export function createBuiltinEmbedderWithLexicon(
  lexicon: Lexicon,
  settingsOverride: Partial<BuiltinEmbedderSettings> = {},
  thesaurus?: Thesaurus,
): Omit<BuiltinEmbedder, "lexiconLoadMs"> {
  const crossLingual = isCrossLingual(lexicon);
  const base = defaultSettingsFor(lexicon);
  const settings: BuiltinEmbedderSettings = { ...base, ...settingsOverride };
  const context = createFeatureContext(lexicon, settings, thesaurus);
  // The dictionary is part of the space: vectors made with another edition (or none) are not comparable.
  const lexiconPart = crossLingual ? `-fd${shortHash(lexicon.fingerprint)}` : "-nolex";
  // Passages with synonyms depend on the thesaurus files too (queries are not stored: no new space).
  const thesaurusPart =
    settings.passageSynonymWeight > 0 && thesaurus !== undefined && thesaurus.fingerprint !== ""
      ? `-th${shortHash(thesaurus.fingerprint)}`
      : "";
  const tag = settingsTag(settings, base);
  const layout = blockLayout(STORED_VECTOR_DIM, settings);
  const lane = createTimeSlicedLane(SLICE_MS);
  const embedOne = (text: string, purpose: EmbedPurpose) =>
    projectFeatures(
      extractTextFeatures(text, purpose, context),
      STORED_VECTOR_DIM,
      layout,
      settings.hashCopies,
    );
  return {
    id: `${BUILTIN_EMBEDDER_ID}${lexiconPart}${tag.length > 0 ? `-s${tag}` : ""}${thesaurusPart}`,
    dim: STORED_VECTOR_DIM,
    tokenizer: approximateTokenizer,
    crossLingual,
    keepCallsApart: true,
    // A query is someone's recall waiting; passages are writes that may queue behind it.
    embed: (texts, purpose) =>
      lane.run(texts.length, (index) => embedOne(texts[index] ?? "", purpose), {
        urgent: purpose === "query",
      }),
  };
}

export async function createBuiltinEmbedder(options: BuiltinEmbedderOptions = {}): Promise<BuiltinEmbedder> {
  if (options.lexicon === false) {
    return { ...createBuiltinEmbedderWithLexicon(createEmptyLexicon(), options.settings), lexiconLoadMs: 0 };
  }
  const loaded = await loadLexicon(options.lexicon ?? {});
  const embedder = createBuiltinEmbedderWithLexicon(loaded.lexicon, options.settings);
  return {
    ...embedder,
    lexiconLoadMs: loaded.loadMs,
    ...(loaded.warning !== undefined ? { lexiconWarning: loaded.warning } : {}),
  };
}
