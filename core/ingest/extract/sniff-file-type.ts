import { ExtractionFailure, type FileType, SUPPORTED_TYPES } from "./file-types.js";
import { listZipEntries } from "./zip-entries.js";

/** What the client said about the file: hints only, the bytes decide (ADR 0500). */
export interface FileHints {
  readonly filename: string;
  readonly contentType: string;
}

const startsWith = (data: Uint8Array, ascii: string, at = 0) =>
  data.length >= at + ascii.length && [...ascii].every((c, i) => data[at + i] === c.charCodeAt(0));

/** `%PDF-` may follow a little junk (some generators write a preamble); readers look in the first KB. */
function isPdf(data: Uint8Array): boolean {
  const head = Buffer.from(data.subarray(0, 1024)).toString("latin1");
  return head.includes("%PDF-");
}

/** A ZIP whose directory holds `word/document.xml` is a Word document (OOXML); other ZIPs are not read. */
function isDocx(data: Uint8Array): boolean {
  return listZipEntries(data).some((e) => e.name === "word/document.xml");
}

const HTML_START = /^<(?:!doctype\s+html|html|head|body)\b/i;
const HTML_HINTED_START =
  /^<(?:!doctype|html|head|body|meta|title|div|p|h[1-6]|article|main|section|table|ul|ol)\b/i;

/** Leading BOM, whitespace, an XML declaration and comments are skipped before the first tag. */
function markupStart(text: string): string {
  return text
    .slice(0, 4096)
    .replace(/^\uFEFF/, "")
    .replace(/^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*/, "");
}

const extensionOf = (filename: string) => /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? "";
const mediaTypeOf = (contentType: string) => contentType.split(";")[0]?.trim().toLowerCase() ?? "";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The file's type from its bytes: `%PDF-` → pdf; a ZIP with word/document.xml → docx; otherwise the
 * bytes must be UTF-8 text without NUL: a document starting with an HTML tag → html (or any markup
 * when the name or Content-Type says HTML), a `.md` name or text/markdown → markdown, else text.
 * The name and Content-Type never make a binary file readable: a `.pdf` that is no PDF is refused.
 */
export function sniffFileType(data: Uint8Array, hints: FileHints): FileType {
  if (isPdf(data)) return "pdf";
  if (startsWith(data, "PK\u0003\u0004")) {
    if (isDocx(data)) return "docx";
    throw new ExtractionFailure(
      "unsupported",
      `this ZIP archive is not a Word document; send ${SUPPORTED_TYPES}`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(data.subarray(0, Math.min(data.length, 64 * 1024)), {
      stream: data.length > 64 * 1024,
    });
  } catch {
    throw new ExtractionFailure(
      "unsupported",
      `the file is neither a supported document nor UTF-8 text; send ${SUPPORTED_TYPES}`,
    );
  }
  if (text.includes("\u0000")) {
    throw new ExtractionFailure(
      "unsupported",
      `the file is binary, not a supported type; send ${SUPPORTED_TYPES}`,
    );
  }
  const extension = extensionOf(hints.filename);
  const mediaType = mediaTypeOf(hints.contentType);
  const start = markupStart(text);
  const hintedHtml =
    ["html", "htm", "xhtml"].includes(extension) ||
    mediaType === "text/html" ||
    mediaType === "application/xhtml+xml";
  if (HTML_START.test(start) || (hintedHtml && HTML_HINTED_START.test(start))) return "html";
  if (["md", "markdown", "mdown", "mkd", "mdx"].includes(extension) || mediaType === "text/markdown")
    return "markdown";
  return "text";
}
