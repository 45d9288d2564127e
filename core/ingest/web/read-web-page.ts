import { TextDecoder } from "node:util";
import { parseHTML } from "linkedom";
import { extractFile } from "../extract/extract-file.js";
import type { FileType } from "../extract/file-types.js";
import type { FetchedPage } from "./fetch-web-page.js";

/** What a web page is read as (FetchWebPageResponse.page_type). */
export type WebPageType = FileType;

/** Named in every unsupported_media_type answer of a fetch, so the caller knows what works. */
export const SUPPORTED_PAGE_TYPES = "HTML, Markdown, plain text, PDF (with a text layer) or DOCX";

export interface ReadWebPage {
  readonly type: WebPageType;
  /** Markdown (HTML's main content, a document's text) or the text as served; without NUL. */
  readonly text: string;
  /** The page's own <title>, "" when it has none (PDF, DOCX, Markdown and text have none here). */
  readonly title: string;
  /** A PDF's page starts in `text` (extract/file-types.ts), for recall to cite a hit's pages. */
  readonly pageStarts?: readonly number[];
}

/** A page of a type this service does not read (store-web-page.ts: unsupported_media_type). */
export class UnsupportedPage extends Error {
  override readonly name = "UnsupportedPage";
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const MARKDOWN_TYPES = new Set(["text/markdown", "text/x-markdown"]);
const PDF_TYPES = new Set(["application/pdf", "application/x-pdf"]);
const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const GENERIC_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream"]);
const HTML_START = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i;

function mediaTypeOf(contentType: string): { type: string; charset: string | undefined } {
  const [type = "", ...parameters] = contentType.split(";").map((p) => p.trim());
  const charset = parameters
    .map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return { type: type.toLowerCase(), charset };
}

const unsupported = (what: string) =>
  new UnsupportedPage(`the page is ${what}, which is not read here; fetch ${SUPPORTED_PAGE_TYPES}`);

/** The page's type: the Content-Type decides; a missing or generic one is sniffed from the bytes. */
function pageType(page: FetchedPage, mediaType: string, head: string): WebPageType {
  if (HTML_TYPES.has(mediaType)) return "html";
  if (MARKDOWN_TYPES.has(mediaType)) return "markdown";
  if (PDF_TYPES.has(mediaType)) return "pdf";
  if (mediaType === DOCX_TYPE) return "docx";
  if (mediaType === "text/plain") {
    return /\.(?:md|markdown|mdown|mkd)$/i.test(new URL(page.url).pathname) ? "markdown" : "text";
  }
  if (GENERIC_TYPES.has(mediaType)) {
    if (head.includes("%PDF-")) return "pdf";
    if (head.startsWith("PK\u0003\u0004")) return "docx";
    if (head.includes("\u0000")) throw unsupported(mediaType || "binary data");
    return HTML_START.test(head) ? "html" : "text";
  }
  throw unsupported(mediaType);
}

/** The encoding a document names for itself: the HTTP charset, else an HTML <meta> near its start. */
function decoderFor(charset: string | undefined, type: WebPageType, head: string): TextDecoder {
  const declared =
    charset ?? (type === "html" ? /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head)?.[1] : undefined);
  try {
    return new TextDecoder(declared ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

/** The text of an HTML page's <title>, its entities decoded, white space collapsed. */
function htmlTitle(html: string): string {
  const raw = /<title[^>]*>([\s\S]{0,2000}?)<\/title>/i.exec(html)?.[1];
  if (raw === undefined) return "";
  const { document } = parseHTML(`<!doctype html><html><head><title>${raw}</title></head></html>`);
  return (document.querySelector("title")?.textContent ?? "").replace(/\s+/g, " ").trim();
}

/**
 * A fetched page as text for the write path. HTML, PDF and DOCX go through the upload's extractors
 * (extract/extract-file.ts: parser workers bounded in time and memory; HTML reduced to its main
 * content as Markdown — no scripts, navigation or footers; headings, lists and tables kept for the
 * chunker); HTML is decoded from its declared charset first, the workers read UTF-8. Markdown and
 * plain text are stored as served. Anything else is refused (UnsupportedPage); the extractors'
 * refusals arrive as their ExtractionFailure.
 */
export async function readWebPage(page: FetchedPage): Promise<ReadWebPage> {
  const { type: mediaType, charset } = mediaTypeOf(page.contentType);
  const head = Buffer.from(page.body.subarray(0, 4096)).toString("latin1");
  const type = pageType(page, mediaType, head);
  if (type === "pdf" || type === "docx") {
    const extracted = await extractFile(page.body, { filename: `page.${type}`, contentType: mediaType });
    return {
      type: extracted.type,
      text: extracted.text,
      title: "",
      ...(extracted.pageStarts === undefined ? {} : { pageStarts: extracted.pageStarts }),
    };
  }
  const decoded = decoderFor(charset, type, head).decode(page.body).replaceAll("\u0000", "");
  if (type !== "html") return { type, text: decoded.trim(), title: "" };
  // The extractor reads a document that starts with markup as HTML; a page that starts with text
  // is HTML all the same, as its server said.
  const html = HTML_START.test(decoded) ? decoded : `<!doctype html>\n${decoded}`;
  const extracted = await extractFile(Buffer.from(html, "utf8"), {
    filename: "page.html",
    contentType: "text/html",
  });
  return { type: "html", text: extracted.text, title: htmlTitle(decoded) };
}
