import type { EmbeddingProvider, EmbedPurpose } from "./embedding-provider.js";

/**
 * The built-in embedder with its passages embedded in worker threads and its queries on the calling
 * thread (docs/ingest.md "Where the built-in embedder runs").
 *
 * Why: during a bulk load the calling thread — the one that serves recalls — spent its time in
 * passage features, and a recall's every continuation waited behind that work and the garbage it
 * left (issue 46: recall p95 during a 50k bulk load 147 ms against 56 ms settled; the service's CPU
 * profile showed the thread busy in stretches of 100–500 ms). Passages in a worker leave the calling
 * thread to requests and let the OS share the two cores; a query stays here, where it is a few
 * milliseconds and needs no hop. The workers run at niceness 10, so the OS gives the core to requests
 * first (ADR 0580; on by default, BUILTIN_EMBEDDER_WORKERS=1).
 *
 * The pool starts with the first passage, not the process (a process that never writes pays nothing);
 * until it is ready, and for good if it cannot start or disagrees about the embedding space, passages
 * are embedded here as before — the vectors are the same either way.
 */
export function offloadPassages(
  local: EmbeddingProvider,
  startPool: () => Promise<EmbeddingProvider>,
  onPoolUnavailable: (reason: string) => void = () => {},
): EmbeddingProvider {
  let pool: EmbeddingProvider | undefined;
  let starting: Promise<void> | undefined;
  let closed = false;

  const start = (): void => {
    starting ??= startPool().then(
      async (started) => {
        if (started.id !== local.id || started.dim !== local.dim) {
          onPoolUnavailable(`the worker pool embeds in ${started.id}, not ${local.id}`);
          await started.close?.();
        } else if (closed) await started.close?.();
        else pool = started;
      },
      (error: unknown) => onPoolUnavailable(error instanceof Error ? error.message : String(error)),
    );
  };

  const embed = (texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    if (purpose === "query") return local.embed(texts, purpose);
    if (pool !== undefined) return pool.embed(texts, purpose);
    if (!closed) start();
    return local.embed(texts, purpose);
  };

  return {
    id: local.id,
    dim: local.dim,
    tokenizer: local.tokenizer,
    embed,
    // Passages go to a pool that takes jobs: merged calls fill its jobs rather than one job per entry.
    keepCallsApart: false,
    async close() {
      closed = true;
      await starting;
      await Promise.all([pool?.close?.(), local.close?.()]);
    },
  };
}
