import test from "ava";
import { DEFAULT_EXTRACTION_LIMITS, extractFile } from "../../core/ingest/extract/extract-file.js";
import { ExtractionFailure } from "../../core/ingest/extract/file-types.js";
import { makePdf } from "../helpers/make-pdf.js";
import { structuredDocx, threePagePdf } from "../helpers/sample-files.js";

// The extraction worker's bounds (ADR 0500): a file that outlives the time limit or outgrows the heap
// ends its worker and is refused as too large; the next file gets a fresh worker and is read.

const hints = { filename: "file", contentType: "" };

async function failure(call: Promise<unknown>): Promise<ExtractionFailure> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ExtractionFailure))
    throw new Error(`expected an ExtractionFailure, got ${String(error)}`);
  return error;
}

test("over the time limit: too_large, and the next file is read by a fresh worker", async (t) => {
  const late = await failure(
    extractFile(threePagePdf(), hints, { ...DEFAULT_EXTRACTION_LIMITS, timeoutMs: 1 }),
  );
  t.is(late.kind, "too_large");
  t.regex(late.message, /took longer than 0\.001 s/);
  const read = await extractFile(threePagePdf(), hints);
  t.deepEqual(read.pageStarts?.length, 3);
});

test("over the heap limit: too_large, the process unharmed", async (t) => {
  const lines = Array.from({ length: 80 }, (_, i) => `line ${i} ${"lorem ipsum dolor sit amet ".repeat(3)}`);
  const big = makePdf(Array.from({ length: 600 }, () => ({ lines })));
  const heavy = await failure(extractFile(big, hints, { ...DEFAULT_EXTRACTION_LIMITS, heapMb: 8 }));
  t.is(heavy.kind, "too_large");
  t.regex(heavy.message, /needs more than 8 MB of memory/);
  t.is((await extractFile(structuredDocx(), hints)).type, "docx");
});
