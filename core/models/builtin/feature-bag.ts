/**
 * Sparse features of one text, grouped in blocks that get their own dimension ranges: feature hash
 * (feature-hash.ts `featureHash` of the name) → (term frequency, weight). Keyed by hash, not name: the
 * projection needs only the hash, and the embedder remembers each word's hashes (word-facts.ts). Two
 * names of one text with the same 32-bit hash would share an entry; they share their dimensions and
 * signs anyway. Frequencies add up and are damped at the end (sublinear tf: a word said
 * five times is not five times as relevant); the weight of a feature is the largest any occurrence brought
 * (channel weight × idf).
 */
export interface FeatureValue {
  frequency: number;
  weight: number;
}

/** German stems, English stems, character n-grams. */
export type FeatureBlock = "de" | "en" | "ngrams";

export class FeatureBag {
  readonly blocks: Record<FeatureBlock, Map<number, FeatureValue>> = {
    de: new Map(),
    en: new Map(),
    ngrams: new Map(),
  };

  /** `maxFrequency` caps the summed frequency (stop words count once, however often they occur). */
  add(
    block: FeatureBlock,
    hash: number,
    frequency: number,
    weight: number,
    maxFrequency = Number.POSITIVE_INFINITY,
  ): void {
    if (frequency <= 0 || weight <= 0) return;
    const features = this.blocks[block];
    const current = features.get(hash);
    if (current === undefined) {
      features.set(hash, { frequency: Math.min(frequency, maxFrequency), weight });
    } else {
      current.frequency = Math.min(current.frequency + frequency, maxFrequency);
      current.weight = Math.max(current.weight, weight);
    }
  }
}

/** 1 + ln(tf) above one occurrence, linear below (fractional shares of translations). */
export function dampFrequency(frequency: number): number {
  return frequency <= 1 ? frequency : 1 + Math.log(frequency);
}
