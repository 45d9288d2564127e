import { Worker } from "node:worker_threads";
import type { EmbedPurpose } from "./embedding-provider.js";
import {
  deserializeError,
  type FromWorker,
  isFromWorker,
  type PoolWorkerData,
  type ToWorker,
} from "./pooled-embedder-protocol.js";
import { ProviderError } from "./provider-error.js";

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

type FailureReason = "inference_failed" | "closed" | "overloaded" | "model_invalid";

/**
 * The worker threads of a pooled embedder and the jobs waiting for them: one job per idle worker, a
 * worker that dies replaced (a few times per worker), its job failed with a ProviderError. Idle
 * workers are unref'd, so they do not keep the process alive.
 */
export class EmbedderWorkerPool {
  readonly #workers = new Set<PoolWorker>();
  readonly #queue: Job[] = [];
  /** The embedding space the first worker reported; every other worker must report the same. */
  identity: { id: string; dim: number } | undefined;
  #closing = false;
  #nextJob = 0;

  constructor(
    private readonly bootstrapUrl: URL,
    private readonly workerData: PoolWorkerData,
    private readonly provider: string,
    private respawnsLeft: number,
    private readonly closeTimeoutMs: number,
  ) {}

  get closing(): boolean {
    return this.#closing;
  }

  get size(): number {
    return this.#workers.size;
  }

  get queued(): number {
    return this.#queue.length;
  }

  failed(message: string, reason: FailureReason): ProviderError {
    return new ProviderError(`${this.provider}: ${message}`, { reason, provider: this.provider });
  }

  /** Queues one job per part and hands them to idle workers; resolves with each part's vectors. */
  submit(parts: readonly (readonly string[])[], purpose: EmbedPurpose): Promise<Float32Array[]>[] {
    const results = parts.map(
      (part) =>
        new Promise<Float32Array[]>((resolve, reject) => {
          this.#queue.push({ id: this.#nextJob++, texts: part, purpose, resolve, reject });
        }),
    );
    this.#dispatch();
    return results;
  }

  /** Starts one worker; resolves once its provider is ready, rejects if it fails to start. */
  spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.bootstrapUrl, { workerData: this.workerData });
      const handle: PoolWorker = { worker, ready: false, job: undefined };
      this.#workers.add(handle);
      worker.on("message", (message: unknown) => {
        if (!isFromWorker(message)) return;
        this.#handleMessage(handle, message, resolve, reject);
      });
      // An uncaught exception ends the worker; "exit" follows and does the cleanup.
      worker.on("error", () => {});
      worker.on("exit", (code) => this.#exited(handle, code, reject));
    });
  }

  /** Fails what waits, asks every worker to finish, and terminates those that do not in time. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const job of this.#queue.splice(0)) job.reject(this.failed("closed", "closed"));
    await Promise.all(
      [...this.#workers].map(
        ({ worker }) =>
          new Promise<void>((resolve) => {
            worker.once("exit", () => resolve());
            // Keep the process alive until the worker is gone; terminate it if it does not finish in time.
            worker.ref();
            const message: ToWorker = { type: "close" };
            worker.postMessage(message);
            setTimeout(() => void worker.terminate(), this.closeTimeoutMs).unref();
          }),
      ),
    );
  }

  #dispatch(): void {
    for (const handle of this.#workers) {
      if (!handle.ready || handle.job !== undefined) continue;
      const job = this.#queue.shift();
      if (job === undefined) return;
      handle.job = job;
      handle.worker.ref();
      const message: ToWorker = { type: "embed", job: job.id, texts: job.texts, purpose: job.purpose };
      handle.worker.postMessage(message);
    }
  }

  #finishJob(handle: PoolWorker, settle: (job: Job) => void): void {
    const job = handle.job;
    handle.job = undefined;
    handle.worker.unref();
    if (job !== undefined) settle(job);
    this.#dispatch();
  }

  #failQueueIfNoWorkers(): void {
    if (this.#workers.size > 0) return;
    for (const job of this.#queue.splice(0))
      job.reject(this.failed("no worker is left to embed", "inference_failed"));
  }

  #exited(handle: PoolWorker, code: number, notStarted: (error: ProviderError) => void): void {
    this.#workers.delete(handle);
    notStarted(this.failed(`worker exited with code ${code} while starting`, "model_invalid"));
    const job = handle.job;
    handle.job = undefined;
    job?.reject(
      this.#closing
        ? this.failed("closed while embedding", "closed")
        : this.failed(`worker exited with code ${code}`, "inference_failed"),
    );
    if (!this.#closing && handle.ready && this.respawnsLeft > 0) {
      this.respawnsLeft--;
      this.spawn().then(
        () => this.#dispatch(),
        () => this.#failQueueIfNoWorkers(),
      );
    }
    this.#failQueueIfNoWorkers();
  }

  #handleMessage(
    handle: PoolWorker,
    message: FromWorker,
    started: () => void,
    notStarted: (error: ProviderError) => void,
  ): void {
    switch (message.type) {
      case "ready": {
        this.identity ??= { id: message.id, dim: message.dim };
        if (this.identity.id !== message.id || this.identity.dim !== message.dim) {
          notStarted(
            this.failed(`workers disagree about the embedding space (${message.id})`, "model_invalid"),
          );
          void handle.worker.terminate();
          return;
        }
        handle.ready = true;
        handle.worker.unref();
        started();
        this.#dispatch();
        return;
      }
      case "failed":
        notStarted(deserializeError(message.error, this.provider));
        void handle.worker.terminate();
        return;
      case "result":
        this.#finishJob(handle, (job) => {
          if (message.vectors.length === job.texts.length) job.resolve(message.vectors);
          else
            job.reject(
              this.failed(
                `worker returned ${message.vectors.length} vectors for ${job.texts.length} texts`,
                "inference_failed",
              ),
            );
        });
        return;
      case "error":
        this.#finishJob(handle, (job) => job.reject(deserializeError(message.error, this.provider)));
        return;
    }
  }
}
