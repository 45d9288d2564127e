import type { SentenceEncoder } from "./create-use-lite-encoder.js";

/**
 * Sentence vectors kept by text for the reranker's semantic scores (ADR 0760): a workspace's recalls
 * keep meeting the same passages, and encoding a sentence is most of the cost. Least recently used
 * entries go first; keys carry the tenant, so whether a text was encoded lately is never observable
 * (by timing) from another tenant. ≈ 2 KB an entry.
 */
export interface SentenceVectorCache {
  embed(encoder: SentenceEncoder, scope: string, texts: readonly string[]): Promise<Float32Array[]>;
}

export function createSentenceVectorCache(maxEntries: number): SentenceVectorCache {
  const entries = new Map<string, Float32Array>();
  return {
    async embed(encoder, scope, texts) {
      const keys = texts.map((text) => `${scope}\u0000${text}`);
      const missing = [...new Set(keys.filter((k) => !entries.has(k)))];
      if (missing.length > 0) {
        const vectors = await encoder.embed(missing.map((k) => k.slice(k.indexOf("\u0000") + 1)));
        missing.forEach((k, i) => {
          const vector = vectors[i];
          if (vector !== undefined) entries.set(k, vector);
        });
      }
      const out = keys.map((k) => {
        const vector = entries.get(k) ?? new Float32Array(encoder.dimensions);
        // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
        entries.delete(k);
        entries.set(k, vector);
        return vector;
      });
      for (const k of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(k);
      }
      return out;
    },
  };
}
