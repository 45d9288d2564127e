/**
 * Small PDFs written byte by byte for the upload tests and the bench (no binary fixtures): each page
 * holds its lines as text in Helvetica (a text layer, as a word processor's export has), or no text at
 * all (a scan without OCR). The cross-reference table carries exact byte offsets, so strict readers
 * accept the file.
 */
export interface PdfPage {
  /**
   * Lines of text, top to bottom (12 pt, or the size given); none: a page without a text layer (it
   * draws a rectangle).
   */
  readonly lines: readonly (string | { readonly text: string; readonly size: number })[];
}

/** A PDF string literal: backslash, parentheses escaped; WinAnsiEncoding bytes (U+0095 is its bullet). */
function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function pageStream(page: PdfPage): string {
  if (page.lines.length === 0) return "0.5 g 72 500 300 200 re f";
  const body = page.lines
    .map((line, i) => {
      const { text, size } = typeof line === "string" ? { text: line, size: 12 } : line;
      return `${i === 0 ? "" : `0 -${Math.round(size * 1.4)} Td `}/F1 ${size} Tf ${pdfString(text)} Tj`;
    })
    .join("\n");
  return `BT 72 760 Td\n${body}\nET`;
}

export function makePdf(pages: readonly PdfPage[]): Uint8Array {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages tree, 3: font; then a page object and its content stream per page.
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  for (const page of pages) {
    const pageId = objects.length;
    const streamId = pageId + 1;
    pageIds.push(pageId);
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${streamId} 0 R >>`;
    const stream = pageStream(page);
    objects[streamId] = `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`;
  }
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`;
  return assemble(objects);
}

/** Header, numbered objects, xref table with each object's byte offset, trailer. */
export function assemble(objects: readonly (string | undefined)[]): Uint8Array {
  let out = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, "latin1");
    out += `${id} 0 obj\n${objects[id] ?? "null"}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, "latin1"));
}
