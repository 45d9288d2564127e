import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { EmbedderWorkerPool } from "./embedder-worker-pool.js";
import type { EmbeddingProvider, EmbedPurpose, Tokenizer } from "./embedding-provider.js";
import type { PoolWorkerData } from "./pooled-embedder-protocol.js";

export interface PooledEmbedderOptions {
  /** Module exporting the provider factory, e.g. `new URL("./builtin/create-builtin-embedder.ts", import.meta.url)`. */
  readonly moduleUrl: string | URL;
  /** Name of the factory export; it is called as `factory(options)` and may return a promise. */
  readonly exportName: string;
  /** The factory's argument; must survive structured cloning (plain data, no functions). */
  readonly options?: unknown;
  /**
   * Counts tokens on the calling thread — the chunker needs an answer synchronously, so it cannot ask a
   * worker. Pass the same tokenizer the workers' provider uses.
   */
  readonly tokenizer: Tokenizer;
  /** Worker threads (default: the number of cores). */
  readonly size?: number;
  /** Jobs waiting for a worker before embed() refuses more work with reason "overloaded" (default 256). */
  readonly maxQueuedJobs?: number;
  /** Texts per job (default 32); a smaller call is split so every worker gets a share. */
  readonly jobSize?: number;
  /**
   * Niceness of the worker threads (default: the process's). Work nobody waits for (a bulk load's
   * passages) runs below the thread that serves requests, so the OS gives that thread the core first.
   */
  readonly niceness?: number;
  /** How long close() lets a worker finish before terminating it (default 5 s). */
  readonly closeTimeoutMs?: number;
}

const BOOTSTRAP_URL = new URL("./pooled-embedder-bootstrap.mjs", import.meta.url);
// The worker module has this file's extension: .ts under tsx, .js if ever compiled.
const WORKER_ENTRY = new URL(
  `./pooled-embedder-worker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * Runs a CPU-bound provider (the built-in embedder, an ONNX model) in worker threads, so embedding uses
 * every core and never blocks the event loop that serves requests. Each worker creates its own provider
 * from `moduleUrl`/`exportName`; a worker that dies is replaced, and its job fails with a ProviderError.
 * Idle workers do not keep the process alive.
 */
export async function createPooledEmbedder(options: PooledEmbedderOptions): Promise<EmbeddingProvider> {
  const size = options.size ?? availableParallelism();
  const maxQueuedJobs = options.maxQueuedJobs ?? 256;
  const jobSize = options.jobSize ?? 32;
  const provider = `pool:${options.exportName}`;
  const workerData: PoolWorkerData = {
    workerEntry: WORKER_ENTRY.href,
    moduleUrl: String(options.moduleUrl),
    exportName: options.exportName,
    options: options.options,
    ...(options.niceness !== undefined ? { niceness: options.niceness } : {}),
  };
  const pool = new EmbedderWorkerPool(
    BOOTSTRAP_URL,
    workerData,
    provider,
    size * 4,
    options.closeTimeoutMs ?? 5000,
  );
  try {
    await Promise.all(Array.from({ length: size }, () => pool.spawn()));
  } catch (error) {
    await pool.close();
    throw error;
  }
  const { id, dim } = pool.identity ?? { id: provider, dim: 0 };

  const embed = async (texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    if (pool.closing) throw pool.failed("closed", "closed");
    if (texts.length === 0) return [];
    const perJob = Math.max(1, Math.min(jobSize, Math.ceil(texts.length / Math.max(1, pool.size))));
    const parts: (readonly string[])[] = [];
    for (let i = 0; i < texts.length; i += perJob) parts.push(texts.slice(i, i + perJob));
    if (pool.queued + parts.length > maxQueuedJobs) {
      throw pool.failed(`queue full (${pool.queued} jobs waiting)`, "overloaded");
    }
    return (await Promise.all(pool.submit(parts, purpose))).flat();
  };

  return { id, dim, tokenizer: options.tokenizer, embed, close: () => pool.close() };
}
