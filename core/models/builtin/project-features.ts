/**
 * Signed feature hashing of a feature bag into a fixed-length vector, L2-normalised.
 *
 * Blocks get separate dimension ranges because hashing noise, not missing matches, limits a 1024-d hashed
 * vector: every query feature that has no partner in a passage still lands on some passage feature's
 * dimension and adds a random ± to the score. With German and English stems in separate ranges, a German
 * query's own stems cannot collide with an English passage's words (and its English translations not with
 * a German passage's), so only features that can match make noise. N-grams, far more numerous than words,
 * are kept apart from both for the same reason.
 *
 * Each feature is spread over `hashCopies` dimensions (a count sketch), each copy with its own sign and
 * 1/√copies of the value: dot products keep their expectation and their noise its variance, but the noise
 * loses its heavy tail — one heavy query word landing on one heavy passage word — which is what lifts a
 * wrong passage into the top ten (measured: +0.015 nDCG@10 on average over the six sets for 4 copies).
 *
 * A text without features (empty, only stop words) yields the zero vector: it has no direction, and
 * cosine with it is 0 for every text.
 */
import type { BuiltinEmbedderSettings } from "./builtin-embedder-settings.js";
import type { FeatureBag, FeatureBlock, FeatureValue } from "./feature-bag.js";
import { dampFrequency } from "./feature-bag.js";
import { rehash } from "./feature-hash.js";

interface Range {
  readonly start: number;
  readonly size: number;
}

type Layout = Readonly<Record<FeatureBlock, Range>>;

/** The dimension ranges of the blocks; with `ngramDimensions` 0 n-grams share the word ranges. */
export function blockLayout(
  dimensions: number,
  settings: Pick<BuiltinEmbedderSettings, "ngramDimensions" | "languageBlocks">,
): Layout {
  const ngramSize = Math.max(0, Math.min(settings.ngramDimensions, dimensions - 2));
  const wordSize = dimensions - ngramSize;
  const ngrams = ngramSize > 0 ? { start: wordSize, size: ngramSize } : { start: 0, size: wordSize };
  if (!settings.languageBlocks)
    return { de: { start: 0, size: wordSize }, en: { start: 0, size: wordSize }, ngrams };
  const half = Math.floor(wordSize / 2);
  return { de: { start: 0, size: half }, en: { start: half, size: wordSize - half }, ngrams };
}

function addBlock(
  vector: Float32Array,
  features: ReadonlyMap<number, FeatureValue>,
  range: Range,
  copies: number,
): void {
  const scale = 1 / Math.sqrt(copies);
  // forEach, not for…of: no [hash, value] entry array per feature (the embedder's hottest loop).
  // Block-free hashes: the German and English stem "april" are the same feature when blocks are shared.
  features.forEach(({ frequency, weight }, hash) => {
    const value = weight * dampFrequency(frequency) * scale;
    for (let copy = 0; copy < copies; copy++) {
      const copyHash = copy === 0 ? hash : rehash(hash, copy);
      const sign = (copyHash & 1) === 0 ? 1 : -1;
      const index = range.start + ((copyHash >>> 1) % range.size);
      vector[index] = (vector[index] ?? 0) + sign * value;
    }
  });
}

export function projectFeatures(
  bag: FeatureBag,
  dimensions: number,
  layout: Layout,
  copies = 1,
): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const block of ["de", "en", "ngrams"] as const)
    addBlock(vector, bag.blocks[block], layout[block], copies);
  let squares = 0;
  for (const value of vector) squares += value * value;
  if (squares === 0) return vector;
  const scale = 1 / Math.sqrt(squares);
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) * scale;
  return vector;
}
