/**
 * Sparse features of one text before hashing, grouped in blocks that get their own dimension ranges:
 * name → (term frequency, weight). Frequencies add up and are damped at the end (sublinear tf: a word said
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
  readonly blocks: Record<FeatureBlock, Map<string, FeatureValue>> = {
    de: new Map(),
    en: new Map(),
    ngrams: new Map(),
  };

  /** `maxFrequency` caps the summed frequency (stop words count once, however often they occur). */
  add(
    block: FeatureBlock,
    name: string,
    frequency: number,
    weight: number,
    maxFrequency = Number.POSITIVE_INFINITY,
  ): void {
    if (frequency <= 0 || weight <= 0) return;
    const features = this.blocks[block];
    const current = features.get(name);
    if (current === undefined) {
      features.set(name, { frequency: Math.min(frequency, maxFrequency), weight });
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
