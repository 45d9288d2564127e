import { parentPort } from "node:worker_threads";
import { extractDocx } from "./docx.js";
import { type ExtractedText, ExtractionFailure, type FileType } from "./file-types.js";
import { extractHtml } from "./html.js";
import { extractPdf } from "./pdf.js";

/** What extract-file.ts hands a worker (one message per file), and what the worker answers. */
export interface ExtractJob {
  readonly type: Extract<FileType, "pdf" | "docx" | "html">;
  readonly data: Uint8Array;
}
export type ExtractAnswer =
  | { readonly ok: true; readonly result: ExtractedText }
  | { readonly ok: false; readonly kind: ExtractionFailure["kind"]; readonly message: string };

async function run(job: ExtractJob): Promise<ExtractedText> {
  switch (job.type) {
    case "pdf":
      return extractPdf(job.data);
    case "docx":
      return extractDocx(job.data);
    case "html":
      return extractHtml(new TextDecoder("utf-8", { fatal: true }).decode(job.data).replace(/^\uFEFF/, ""));
  }
}

async function answer(job: ExtractJob): Promise<ExtractAnswer> {
  try {
    return { ok: true, result: await run(job) };
  } catch (error) {
    if (error instanceof ExtractionFailure) return { ok: false, kind: error.kind, message: error.message };
    // A parser's own failure (a broken file, a stack overflow on deep nesting) is an unreadable file.
    const message =
      error instanceof RangeError
        ? "it is nested too deeply"
        : error instanceof Error
          ? error.message.slice(0, 200)
          : String(error);
    return {
      ok: false,
      kind: "unsupported",
      message: `the ${job.type.toUpperCase()} cannot be read (${message})`,
    };
  }
}

// One file at a time: extract-file.ts sends the next job only after this answer.
parentPort?.on("message", (job: ExtractJob) => {
  void answer(job).then((result) => parentPort?.postMessage(result));
});
