import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { EmbeddingProvider, EmbedPurpose, Tokenizer } from "./embedding-provider.js";
import {
  deserializeError,
  type FromWorker,
  isFromWorker,
  type PoolWorkerData,
  type ToWorker,
} from "./pooled-embedder-protocol.js";
import { ProviderError } from "./provider-error.js";

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
  /** How long close() lets a worker finish before terminating it (default 5 s). */
  readonly closeTimeoutMs?: number;
}

interface Job {
  readonly id: number;
  readonly texts: readonly string[];
  readonly purpose: EmbedPurpose;
  resolve(vectors: Float32Array[]): void;
  reject(error: ProviderError): void;
}

interface PoolWorker {
  readonly worker: Worker;
  ready: boolean;
  job: Job | undefined;
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
  };
  const workers = new Set<PoolWorker>();
  const queue: Job[] = [];
  let identity: { id: string; dim: number } | undefined;
  let closing = false;
  let nextJob = 0;
  let respawnsLeft = size * 4;

  const failed = (message: string, reason: "inference_failed" | "closed" | "overloaded" | "model_invalid") =>
    new ProviderError(`${provider}: ${message}`, { reason, provider });

  const dispatch = (): void => {
    for (const handle of workers) {
      if (!handle.ready || handle.job !== undefined) continue;
      const job = queue.shift();
      if (job === undefined) return;
      handle.job = job;
      handle.worker.ref();
      const message: ToWorker = { type: "embed", job: job.id, texts: job.texts, purpose: job.purpose };
      handle.worker.postMessage(message);
    }
  };

  const finishJob = (handle: PoolWorker, settle: (job: Job) => void): void => {
    const job = handle.job;
    handle.job = undefined;
    handle.worker.unref();
    if (job !== undefined) settle(job);
    dispatch();
  };

  const failQueueIfNoWorkers = (): void => {
    if (workers.size > 0) return;
    for (const job of queue.splice(0)) job.reject(failed("no worker is left to embed", "inference_failed"));
  };

  const spawn = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(BOOTSTRAP_URL, { workerData });
      const handle: PoolWorker = { worker, ready: false, job: undefined };
      workers.add(handle);
      worker.on("message", (message: unknown) => {
        if (!isFromWorker(message)) return;
        handleMessage(handle, message, resolve, reject);
      });
      // An uncaught exception ends the worker; "exit" follows and does the cleanup.
      worker.on("error", () => {});
      worker.on("exit", (code) => {
        workers.delete(handle);
        reject(failed(`worker exited with code ${code} while starting`, "model_invalid"));
        const job = handle.job;
        handle.job = undefined;
        job?.reject(
          closing
            ? failed("closed while embedding", "closed")
            : failed(`worker exited with code ${code}`, "inference_failed"),
        );
        if (!closing && handle.ready && respawnsLeft > 0) {
          respawnsLeft--;
          spawn().then(dispatch, failQueueIfNoWorkers);
        }
        failQueueIfNoWorkers();
      });
    });

  const handleMessage = (
    handle: PoolWorker,
    message: FromWorker,
    started: () => void,
    notStarted: (error: ProviderError) => void,
  ): void => {
    switch (message.type) {
      case "ready": {
        identity ??= { id: message.id, dim: message.dim };
        if (identity.id !== message.id || identity.dim !== message.dim) {
          notStarted(failed(`workers disagree about the embedding space (${message.id})`, "model_invalid"));
          void handle.worker.terminate();
          return;
        }
        handle.ready = true;
        handle.worker.unref();
        started();
        dispatch();
        return;
      }
      case "failed":
        notStarted(deserializeError(message.error, provider));
        void handle.worker.terminate();
        return;
      case "result":
        finishJob(handle, (job) => {
          if (message.vectors.length === job.texts.length) job.resolve(message.vectors);
          else
            job.reject(
              failed(
                `worker returned ${message.vectors.length} vectors for ${job.texts.length} texts`,
                "inference_failed",
              ),
            );
        });
        return;
      case "error":
        finishJob(handle, (job) => job.reject(deserializeError(message.error, provider)));
        return;
    }
  };

  const close = async (): Promise<void> => {
    closing = true;
    for (const job of queue.splice(0)) job.reject(failed("closed", "closed"));
    const timeoutMs = options.closeTimeoutMs ?? 5000;
    await Promise.all(
      [...workers].map(
        ({ worker }) =>
          new Promise<void>((resolve) => {
            worker.once("exit", () => resolve());
            // Keep the process alive until the worker is gone; terminate it if it does not finish in time.
            worker.ref();
            const message: ToWorker = { type: "close" };
            worker.postMessage(message);
            setTimeout(() => void worker.terminate(), timeoutMs).unref();
          }),
      ),
    );
  };

  try {
    await Promise.all(Array.from({ length: size }, spawn));
  } catch (error) {
    await close();
    throw error;
  }
  const { id, dim } = identity ?? { id: provider, dim: 0 };

  const embed = async (texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    if (closing) throw failed("closed", "closed");
    if (texts.length === 0) return [];
    const perJob = Math.max(1, Math.min(jobSize, Math.ceil(texts.length / Math.max(1, workers.size))));
    const parts: (readonly string[])[] = [];
    for (let i = 0; i < texts.length; i += perJob) parts.push(texts.slice(i, i + perJob));
    if (queue.length + parts.length > maxQueuedJobs) {
      throw failed(`queue full (${queue.length} jobs waiting)`, "overloaded");
    }
    const results = parts.map(
      (part) =>
        new Promise<Float32Array[]>((resolve, reject) => {
          queue.push({ id: nextJob++, texts: part, purpose, resolve, reject });
        }),
    );
    dispatch();
    return (await Promise.all(results)).flat();
  };

  return { id, dim, tokenizer: options.tokenizer, embed, close };
}
