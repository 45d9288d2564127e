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

/** A line of a page's text layer: its text, its tallest glyph height, a paragraph gap above it. */
interface PdfLine {
  readonly text: string;
  readonly height: number;
  readonly gapBefore: boolean;
}

/**
 * One page's text layer as lines (pdf.js marks line ends); a vertical gap of more than ≈ 1.5 lines
 * above a line starts a new paragraph.
 */
function pageLines(items: readonly unknown[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let text = "";
  let height = 0;
  let gapBefore = false;
  let lastY: number | undefined;
  let lastHeight = 0;
  const endLine = () => {
    if (/\S/u.test(text)) lines.push({ text: text.trim(), height, gapBefore });
    text = "";
    height = 0;
    gapBefore = false;
  };
  for (const item of items) {
    if (!isTextItem(item)) continue;
    const y = item.transform[5] ?? 0;
    const itemHeight = Math.abs(item.transform[3] ?? 0);
    if (text === "" && lastY !== undefined && lastY - y > 1.8 * Math.max(itemHeight, lastHeight))
      gapBefore = true;
    text += item.str;
    if (/\S/u.test(item.str)) height = Math.max(height, itemHeight);
    lastY = y;
    lastHeight = itemHeight || lastHeight;
    if (item.hasEOL) endLine();
  }
  endLine();
  return lines;
}

/** The body text's glyph height: the height most characters of the document have. */
function bodyHeight(pages: readonly (readonly PdfLine[])[]): number {
  const chars = new Map<number, number>();
  for (const line of pages.flat()) {
    const key = Math.round(line.height * 2) / 2;
    chars.set(key, (chars.get(key) ?? 0) + line.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [height, count] of chars) {
    if (count > most) [best, most] = [height, count];
  }
  return best;
}

const BULLET = /^[•●▪◦‣∙·]\s*/u;

/**
 * A page as Markdown the chunker cuts well: a short line set clearly larger than the body text
 * becomes a heading (`#` from 1.6×, `##` from 1.3×, `###` from 1.15× the body height), a line
 * starting with a bullet glyph a `-` item, a paragraph gap a blank line.
 */
function pageMarkdown(lines: readonly PdfLine[], body: number): string {
  const out: string[] = [];
  for (const line of lines) {
    const ratio = body > 0 ? line.height / body : 1;
    if (ratio >= 1.15 && line.text.length <= 150 && /\p{L}/u.test(line.text)) {
      const marks = ratio >= 1.6 ? "#" : ratio >= 1.3 ? "##" : "###";
      if (out.length > 0) out.push("");
      out.push(`${marks} ${line.text}`, "");
      continue;
    }
    if (line.gapBefore && out.length > 0 && out.at(-1) !== "") out.push("");
    out.push(BULLET.test(line.text) ? line.text.replace(BULLET, "- ") : line.text);
  }
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * The text layer of a PDF (pdf.js through unpdf, ADR 0500) as Markdown, page by page, pages separated
 * by a blank line; `pageStarts` keeps where each page begins so a chunk can cite its page. No text on any page
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
    const pages: PdfLine[][] = [];
    for (let n = 1; n <= document.numPages; n++) {
      try {
        const page = await document.getPage(n);
        pages.push(pageLines((await page.getTextContent()).items));
        page.cleanup();
      } catch (error) {
        throw new ExtractionFailure(
          "unsupported",
          `page ${n} of the PDF cannot be read (${pdfReason(error)})`,
        );
      }
    }
    const body = bodyHeight(pages);
    const pageStarts: number[] = [];
    let text = "";
    for (const [index, lines] of pages.entries()) {
      if (index > 0) text += "\n\n";
      pageStarts.push(text.length);
      text += pageMarkdown(lines, body);
    }
    if (!/\S/u.test(text)) {
      throw new ExtractionFailure(
        "no_text",
        "no text could be extracted: the PDF has no text layer (scanned pages?); OCR is not offered",
      );
    }
    return { type: "pdf", text, pageStarts };
  } finally {
    // The worker is kept for the next file: the document's loading task goes with it, so nothing of
    // this file stays referenced (pdf.js's in-thread transport would hold it otherwise).
    await document.loadingTask.destroy().catch(() => {});
  }
}

function pdfReason(error: unknown): string {
  if (error instanceof RangeError) return "nested too deeply";
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200) || "invalid structure";
}
