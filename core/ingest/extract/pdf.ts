import { getDocumentProxy } from "unpdf";
import { type ExtractedText, ExtractionFailure } from "./file-types.js";

/** More pages than any document a person uploads to be recalled by page; a bound on work per file. */
export const MAX_PDF_PAGES = 2_000;

interface TextItemLike {
  readonly str: string;
  readonly hasEOL: boolean;
  readonly transform: readonly number[];
}

const isTextItem = (item: unknown): item is TextItemLike =>
  typeof item === "object" && item !== null && "str" in item && "transform" in item;

/**
 * One page's text layer as lines; a vertical gap of more than 1.5 lines between two lines becomes a
 * blank line, so paragraphs reach the chunker as Markdown paragraphs.
 */
function pageText(items: readonly unknown[]): string {
  let out = "";
  let lastY: number | undefined;
  let lastHeight = 0;
  for (const item of items) {
    if (!isTextItem(item)) continue;
    const y = item.transform[5] ?? 0;
    const height = Math.abs(item.transform[3] ?? 0) || lastHeight;
    if (lastY !== undefined && out.endsWith("\n") && lastY - y > 1.5 * Math.max(height, lastHeight) * 1.2) {
      out += "\n";
    }
    out += item.str;
    if (item.hasEOL) out += "\n";
    lastY = y;
    lastHeight = height;
  }
  return out.replace(/[ \t]+\n/g, "\n").trim();
}

/**
 * The text layer of a PDF (pdf.js through unpdf, ADR 0500), page by page, pages separated by a blank
 * line; `pageStarts` keeps where each page begins so a chunk can cite its page. No text on any page
 * (a scan): no_text — OCR is not offered. Runs in the extraction worker (bounded time and memory).
 */
export async function extractPdf(data: Uint8Array): Promise<ExtractedText> {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(data, {
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: true,
      verbosity: 0,
    });
  } catch (error) {
    throw new ExtractionFailure("unsupported", `the PDF cannot be read (${pdfReason(error)})`);
  }
  try {
    if (document.numPages > MAX_PDF_PAGES) {
      throw new ExtractionFailure(
        "too_large",
        `the PDF has ${document.numPages} pages; at most ${MAX_PDF_PAGES} are read — split it`,
      );
    }
    const pageStarts: number[] = [];
    let text = "";
    for (let n = 1; n <= document.numPages; n++) {
      let content: string;
      try {
        const page = await document.getPage(n);
        content = pageText((await page.getTextContent()).items);
        page.cleanup();
      } catch (error) {
        throw new ExtractionFailure(
          "unsupported",
          `page ${n} of the PDF cannot be read (${pdfReason(error)})`,
        );
      }
      if (n > 1) text += "\n\n";
      pageStarts.push(text.length);
      text += content;
    }
    if (!/\S/u.test(text)) {
      throw new ExtractionFailure(
        "no_text",
        "no text could be extracted: the PDF has no text layer (scanned pages?); OCR is not offered",
      );
    }
    return { type: "pdf", text, pageStarts };
  } finally {
    // The worker ends after one file; cleanup frees the parsed objects before the text is sent.
    await document.cleanup().catch(() => {});
  }
}

function pdfReason(error: unknown): string {
  if (error instanceof RangeError) return "nested too deeply";
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200) || "invalid structure";
}
