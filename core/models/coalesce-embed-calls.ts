import type { EmbeddingProvider, EmbedPurpose } from "./embedding-provider.js";

interface Waiter {
  readonly from: number;
  readonly count: number;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * An embedder that sends the calls made within one turn of the event loop as one call per purpose
 * to `embedder`, and hands each caller its own vectors. For StoreMemories: its entries each start an
 * embedding (each on an immediate of its own, core/ingest/decide-memory-write.ts), and a worker pool
 * counts every call as a job — 8 concurrent batches of 100 one-chunk entries were 800 jobs against
 * the pool's queue of 256 and failed as "overloaded"; merged they are 8 calls, split by the pool into
 * jobs of 32 texts. An HTTP provider gets requests of its batch size (64 texts) instead of 100 of one
 * text. A failing merged call fails every caller in it, as one caller's call would. An embedder that
 * keeps calls apart (the built-in one on the calling thread) is returned as it is: merged, 8 batches'
 * embeddings took turns as 8 calls and each finished only at the end (6,000 entries: 399 chunks/s
 * against 477 kept apart).
 */
export function coalesceEmbedCalls(embedder: EmbeddingProvider): EmbeddingProvider {
  if (embedder.keepCallsApart) return embedder;
  const pending = new Map<EmbedPurpose, { texts: string[]; waiters: Waiter[] }>();
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const groups = [...pending];
    pending.clear();
    for (const [purpose, { texts, waiters }] of groups) {
      embedder.embed(texts, purpose).then(
        (vectors) => {
          for (const w of waiters) w.resolve(vectors.slice(w.from, w.from + w.count));
        },
        (error: unknown) => {
          for (const w of waiters) w.reject(error);
        },
      );
    }
  };

  return {
    id: embedder.id,
    dim: embedder.dim,
    tokenizer: embedder.tokenizer,
    embed(texts, purpose) {
      if (texts.length === 0) return Promise.resolve([]);
      let group = pending.get(purpose);
      if (!group) {
        group = { texts: [], waiters: [] };
        pending.set(purpose, group);
      }
      const { texts: all, waiters } = group;
      return new Promise<Float32Array[]>((resolve, reject) => {
        waiters.push({ from: all.length, count: texts.length, resolve, reject });
        all.push(...texts);
        // An immediate queued now runs after every immediate already queued: the other entries'.
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
