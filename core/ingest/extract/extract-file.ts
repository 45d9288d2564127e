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
 * Bounds of one extraction (ADR 0500): the parsers run in a worker thread of their own with a capped
 * heap, and one that runs longer than the time limit is terminated. A file that needs more is
 * refused as too large; the process itself never runs out of memory over a file.
 */
export interface ExtractionLimits {
  readonly heapMb: number;
  readonly timeoutMs: number;
  /** Extractions running at once; further files wait their turn (each takes a core while it runs). */
  readonly concurrency: number;
}

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = { heapMb: 128, timeoutMs: 60_000, concurrency: 2 };

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
  return inTurn(limits.concurrency, () =>
    inWorker({ workerEntry: WORKER_ENTRY.href, type, data: new Uint8Array(data) }, limits),
  );
}

function inWorker(job: ExtractJob, limits: ExtractionLimits): Promise<ExtractedText> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP_URL, {
      workerData: job,
      transferList: [job.data.buffer as ArrayBuffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new ExtractionFailure(
              "too_large",
              `reading the ${job.type.toUpperCase()} took longer than ${limits.timeoutMs / 1000} s; split it`,
            ),
          ),
        ),
      limits.timeoutMs,
    );
    worker.on("message", (message: ExtractAnswer) =>
      settle(() =>
        message.ok ? resolve(message.result) : reject(new ExtractionFailure(message.kind, message.message)),
      ),
    );
    worker.on("error", (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new ExtractionFailure(
                "too_large",
                `reading the ${job.type.toUpperCase()} needs more than ${limits.heapMb} MB of memory; split it`,
              )
            : new ExtractionFailure(
                "unsupported",
                `the ${job.type.toUpperCase()} cannot be read (${error.message.slice(0, 200)})`,
              ),
        ),
      ),
    );
    worker.on("exit", (code) =>
      settle(() =>
        reject(
          new ExtractionFailure(
            "unsupported",
            `the ${job.type.toUpperCase()} cannot be read (the reader stopped with code ${code})`,
          ),
        ),
      ),
    );
  });
}
