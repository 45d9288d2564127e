import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import { ProviderError } from "../../core/models/provider-error.js";

/**
 * A deterministic provider that burns CPU in plain JavaScript, like the built-in hashing embedder — the
 * kind of provider the worker pool exists for. Options let tests make it fail, crash its thread, or fail
 * to start.
 */
export interface CpuBoundEmbedderOptions {
  readonly dim?: number;
  /** Work per text (xorshift rounds). */
  readonly rounds?: number;
  /** Embedding this text throws a ProviderError("inference_failed"). */
  readonly failOn?: string;
  /** Embedding this text ends the thread (process.exit inside a worker ends only that worker). */
  readonly exitOn?: string;
  readonly failToStart?: boolean;
  /**
   * A rendezvous: each embed() call counts itself in slot 0 and waits (up to 10 s) until `parties` calls
   * have arrived. Returns [1] per text if they all met, [0] if it waited in vain — proof of parallelism
   * that does not depend on timing.
   */
  readonly barrier?: { readonly memory: SharedArrayBuffer; readonly parties: number };
}

export async function createCpuBoundEmbedder(
  options: CpuBoundEmbedderOptions = {},
): Promise<EmbeddingProvider> {
  if (options.failToStart === true) throw new Error("cpu-bound test embedder refused to start");
  const dim = options.dim ?? 16;
  const rounds = options.rounds ?? 20_000;
  return {
    id: `test-cpu:${dim}`,
    dim,
    tokenizer: { countTokens: (text) => text.split(/\s+/).filter(Boolean).length },
    async embed(texts) {
      if (options.barrier !== undefined) return meet(options.barrier, texts.length);
      return texts.map((text) => {
        if (text === options.failOn) {
          throw new ProviderError(`cannot embed "${text}"`, {
            reason: "inference_failed",
            provider: "test-cpu",
          });
        }
        if (text === options.exitOn) process.exit(3);
        return burn(text, dim, rounds);
      });
    },
  };
}

function meet(barrier: { memory: SharedArrayBuffer; parties: number }, count: number): Float32Array[] {
  const slots = new Int32Array(barrier.memory);
  Atomics.add(slots, 0, 1);
  Atomics.notify(slots, 0);
  const deadline = Date.now() + 10_000;
  let arrived = Atomics.load(slots, 0);
  while (arrived < barrier.parties && Date.now() < deadline) {
    Atomics.wait(slots, 0, arrived, deadline - Date.now());
    arrived = Atomics.load(slots, 0);
  }
  const met = arrived >= barrier.parties ? 1 : 0;
  return Array.from({ length: count }, () => Float32Array.of(met));
}

export function burn(text: string, dim: number, rounds: number): Float32Array {
  let state = 2166136261;
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 16777619) >>> 0;
  const vector = new Float32Array(dim);
  for (let r = 0; r < rounds; r++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    vector[r % dim] = (vector[r % dim] as number) + ((state & 0xffff) / 0xffff - 0.5);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
