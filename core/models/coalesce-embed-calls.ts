import type { EmbeddingProvider, EmbedPurpose } from "./embedding-provider.js";
import { ProviderError, type ProviderErrorReason } from "./provider-error.js";

interface Waiter {
  readonly from: number;
  readonly count: number;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Failures that one input can cause (a text the provider refuses, an answer it cannot give for one
 * text): a merged call failing so is tried again per caller. An outage, a rate limit or a wrong key
 * fails every caller at once — trying each alone would only multiply requests to a failing provider.
 */
const PER_INPUT: ReadonlySet<ProviderErrorReason> = new Set(["rejected", "bad_response", "inference_failed"]);
const mayBeOneInput = (error: unknown) => error instanceof ProviderError && PER_INPUT.has(error.reason);

/**
 * An embedder that sends the calls made within one turn of the event loop as one call per purpose
 * to `embedder`, and hands each caller its own vectors. For StoreMemories: its entries each start an
 * embedding (each on an immediate of its own, core/memories/decide-memory-write.ts), and a worker pool
 * counts every call as a job — 8 concurrent batches of 100 one-chunk entries were 800 jobs against
 * the pool's queue of 256 and failed as "overloaded"; merged they are 8 calls, split by the pool into
 * jobs of 32 texts. An HTTP provider gets requests of its batch size (64 texts) instead of 100 of one
 * text. A merged call that fails as one text can make it fail is tried again per caller, so a
 * refused entry fails alone (StoreMemories: one bad entry of 100 fails one entry, not 100); any other
 * failure fails every caller in it, as one caller's call would. An embedder that
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
          if (waiters.length === 1 || !mayBeOneInput(error)) {
            for (const w of waiters) w.reject(error);
            return;
          }
          // One caller's text may be what the provider refused: each caller tries its own texts.
          for (const w of waiters)
            embedder.embed(texts.slice(w.from, w.from + w.count), purpose).then(w.resolve, w.reject);
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
