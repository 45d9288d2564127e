import mammoth from "mammoth";
import { type ExtractedText, ExtractionFailure } from "./file-types.js";
import { htmlToMarkdown } from "./html-to-markdown.js";
import { listZipEntries, readZipEntry } from "./zip-entries.js";

/** A Word document's parts unpacked together; real documents of 10 MB unpack to a few times that. */
export const MAX_DOCX_UNPACKED_BYTES = 64 * 1024 * 1024;
export const MAX_DOCX_ENTRIES = 5_000;
/** Deflate reaches ≈ 1:1000 at best on real data; anything beyond is a bomb, not a document. */
const MAX_RATIO = 200;

/**
 * Checks a DOCX's sizes before mammoth (which unpacks with JSZip, unbounded) sees it: the directory's
 * declared sizes are capped in sum and in ratio, and every entry is then unpacked once with zlib
 * stopping at its declared size, so a lying entry fails after at most that many bytes (zip bomb).
 */
function checkZipBounds(data: Uint8Array): void {
  const entries = listZipEntries(data);
  if (entries.length > MAX_DOCX_ENTRIES) {
    throw new ExtractionFailure(
      "too_large",
      `the DOCX holds ${entries.length} parts; at most ${MAX_DOCX_ENTRIES} are read`,
    );
  }
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (
      total > MAX_DOCX_UNPACKED_BYTES ||
      entry.uncompressedSize > MAX_RATIO * Math.max(entry.compressedSize, 1024)
    ) {
      throw new ExtractionFailure(
        "too_large",
        `the DOCX unpacks to more than ${MAX_DOCX_UNPACKED_BYTES / 1024 / 1024} MB or compresses beyond any document (a zip bomb?); it is not read`,
      );
    }
  }
  for (const entry of entries) {
    if (!entry.name.endsWith("/")) readZipEntry(data, entry);
  }
}

/** Images are not read: their bytes would only be dropped later (html-to-markdown.ts). */
const skipImages = mammoth.images.imgElement(async () => ({ src: "" }));

/**
 * A Word document as Markdown: mammoth maps Word's paragraph styles to HTML (Heading 1 → h1, lists,
 * tables), turndown writes that as Markdown. Runs in the extraction worker.
 */
export async function extractDocx(data: Uint8Array): Promise<ExtractedText> {
  checkZipBounds(data);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(data) }, { convertImage: skipImages })).value;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionFailure("unsupported", `the DOCX cannot be read (${message.slice(0, 200)})`);
  }
  return { type: "docx", text: htmlToMarkdown(html) };
}
