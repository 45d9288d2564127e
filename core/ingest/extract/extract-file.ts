import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ExtractAnswer, ExtractJob } from "./extract-worker.js";
import { type ExtractedText, ExtractionFailure, MAX_FILE_BYTES, SUPPORTED_TYPES } from "./file-types.js";
import { type FileHints, sniffFileType } from "./sniff-file-type.js";

const BOOTSTRAP_URL = new URL("./extract-bootstrap.mjs", import.meta.url);
// The worker module has this file's extension: .ts under tsx, .js in dist/.
const WORKER_ENTRY = new URL(`./extract-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Bounds of one extraction (ADR 0500): the parsers run in worker threads with a capped heap, one file
 * per worker at a time, and a file that takes longer than the time limit has its worker terminated.
 * A file that needs more is refused as too large; the process itself never runs out of memory over
 * a file. A worker that answered is kept for the next file for `idleMs` (loading the parsers costs
 * more than most files), then ended, so an idle service holds none.
 */
export interface ExtractionLimits {
  readonly heapMb: number;
  readonly timeoutMs: number;
  /** Extractions running at once; further files wait their turn (each takes a core while it runs). */
  readonly concurrency: number;
  readonly idleMs: number;
}

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  heapMb: 128,
  timeoutMs: 60_000,
  concurrency: 2,
  idleMs: 15_000,
};

let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(concurrency: number, work: () => Promise<T>): Promise<T> {
  if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Workers that answered their last file and wait for the next one, each with its end timer. */
const idleWorkers: { readonly worker: Worker; readonly timer: NodeJS.Timeout; readonly heapMb: number }[] =
  [];

function takeWorker(limits: ExtractionLimits): Worker {
  const index = idleWorkers.findIndex((w) => w.heapMb === limits.heapMb);
  const kept = index >= 0 ? idleWorkers.splice(index, 1)[0] : undefined;
  if (kept) {
    clearTimeout(kept.timer);
    kept.worker.ref();
    return kept.worker;
  }
  return new Worker(BOOTSTRAP_URL, {
    workerData: { workerEntry: WORKER_ENTRY.href },
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
  });
}

function keepWorker(worker: Worker, limits: ExtractionLimits): void {
  worker.unref();
  const timer = setTimeout(() => {
    const index = idleWorkers.findIndex((w) => w.worker === worker);
    if (index >= 0) idleWorkers.splice(index, 1);
    void worker.terminate();
  }, limits.idleMs);
  timer.unref();
  idleWorkers.push({ worker, timer, heapMb: limits.heapMb });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeText(data: Uint8Array): string {
  try {
    return utf8.decode(data).replace(/^\uFEFF/, "");
  } catch {
    throw new ExtractionFailure("unsupported", `the file is not UTF-8 text; send ${SUPPORTED_TYPES}`);
  }
}

/**
 * A file's text for the write path: its type sniffed from the bytes, Markdown and plain text decoded
 * here, PDF, DOCX and HTML parsed in a bounded worker. Throws ExtractionFailure for every refusal.
 */
export async function extractFile(
  data: Uint8Array,
  hints: FileHints,
  limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS,
): Promise<ExtractedText> {
  if (data.length > MAX_FILE_BYTES) {
    throw new ExtractionFailure(
      "too_large",
      `the file has ${data.length} bytes; at most 10 MB (${MAX_FILE_BYTES} bytes) are accepted`,
    );
  }
  if (data.length === 0) throw new ExtractionFailure("no_text", "the file is empty");
  const type = sniffFileType(data, hints);
  if (type === "markdown" || type === "text") return { type, text: decodeText(data) };
  // A copy of its own (the request's bytes may be a view into a larger buffer) is moved to the worker.
  const job: ExtractJob = { type, data: new Uint8Array(data) };
  return inTurn(limits.concurrency, () => inWorker(job, limits));
}

function inWorker(job: ExtractJob, limits: ExtractionLimits): Promise<ExtractedText> {
  const worker = takeWorker(limits);
  const what = job.type.toUpperCase();
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      if (reusable) keepWorker(worker, limits);
      else void worker.terminate();
      outcome();
    };
    const onMessage = (message: ExtractAnswer) =>
      settle(
        () =>
          message.ok ? resolve(message.result) : reject(new ExtractionFailure(message.kind, message.message)),
        true,
      );
    const onError = (error: Error & { code?: string }) =>
      settle(
        () =>
          reject(
            error.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new ExtractionFailure(
                  "too_large",
                  `reading the ${what} needs more than ${limits.heapMb} MB of memory; split it`,
                )
              : new ExtractionFailure(
                  "unsupported",
                  `the ${what} cannot be read (${error.message.slice(0, 200)})`,
                ),
          ),
        false,
      );
    const onExit = (code: number) =>
      settle(
        () =>
          reject(
            new ExtractionFailure(
              "unsupported",
              `the ${what} cannot be read (the reader stopped with code ${code})`,
            ),
          ),
        false,
      );
    const timer = setTimeout(
      () =>
        settle(
          () =>
            reject(
              new ExtractionFailure(
                "too_large",
                `reading the ${what} took longer than ${limits.timeoutMs / 1000} s; split it`,
              ),
            ),
          false,
        ),
      limits.timeoutMs,
    );
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.postMessage(job, [job.data.buffer as ArrayBuffer]);
  });
}
