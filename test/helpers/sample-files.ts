import { docxParts, makeDocx, makeZip } from "./make-docx.js";
import { assemble, makePdf } from "./make-pdf.js";

/**
 * The files the upload tests send (IngestService/UploadFile, REST /api/v1/documents/upload, the
 * dashboard), built in the test: each says what it should teach the reader.
 */

/** Three pages; the falcon sentence is on page 2 only; headings set larger, a bullet list. */
export const threePagePdf = () =>
  makePdf([
    { lines: [{ text: "Annual report 2026", size: 22 }, "The board met four times this year."] },
    {
      lines: [
        { text: "Wildlife survey", size: 16 },
        "Peregrine falcons nest on the north tower of the cathedral.",
        "\u0095 two breeding pairs",
        "\u0095 one fledgling ringed",
      ],
    },
    { lines: ["Finances", "Revenue grew by twelve percent."] },
  ]);

/** A scan: pages without a text layer. */
export const scannedPdf = () => makePdf([{ lines: [] }, { lines: [] }]);

/** Over 10,000 characters of text on 30 pages: indexed by the worker. */
export const longPdf = () =>
  makePdf(
    Array.from({ length: 30 }, (_, p) => ({
      lines: Array.from(
        { length: 8 },
        (_, l) =>
          `Page ${p + 1} section ${l}: ${p === 22 && l === 3 ? "the lighthouse keeper logs every passing ship" : "routine maintenance of the harbour cranes continued"}.`,
      ),
    })),
  );

/** An array nested 200,000 deep in the catalog: a parser that recurses would blow its stack. */
export const deeplyNestedPdf = () =>
  assemble([
    undefined,
    `<< /Type /Catalog /Pages 2 0 R /Nest ${"[".repeat(200_000)}${"]".repeat(200_000)} >>`,
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
  ]);

/** A page tree of 3,000 pages (one page object listed 3,000 times): over the page limit. */
export const hugePageCountPdf = () =>
  assemble([
    undefined,
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${Array.from({ length: 3000 }, () => "3 0 R").join(" ")}] /Count 3000 >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
  ]);

/** Headings, a list and a table, as Word writes them. */
export const structuredDocx = () =>
  makeDocx([
    { heading: 1, text: "Project Kestrel" },
    { paragraph: "The kickoff meeting moved to Thursday afternoon." },
    { bullets: ["Order the telemetry tags", "Book the ringing permit"] },
    { heading: 2, text: "Budget" },
    {
      table: [
        ["Item", "Cost"],
        ["Telemetry tags", "1200 EUR"],
      ],
    },
  ]);

function bomb(declaredSize?: number): Uint8Array {
  const parts = Object.entries(docxParts([{ paragraph: "x" }]))
    .filter(([name]) => name !== "word/document.xml")
    .map(([name, xml]) => ({ name, data: Buffer.from(xml, "utf8") }));
  // 40 MB of spaces deflate to ≈ 40 KB.
  const document = Buffer.alloc(40 * 1024 * 1024, 0x20);
  return makeZip([
    ...parts,
    { name: "word/document.xml", data: document, ...(declaredSize === undefined ? {} : { declaredSize }) },
  ]);
}

/** A zip bomb that declares its true size (1:1000). */
export const zipBombDocx = () => bomb();
/** A zip bomb whose directory claims 20 KB for a part that unpacks to 40 MB. */
export const lyingZipBombDocx = () => bomb(20_000);

/** A page with navigation, scripts and a footer around its article. */
export const articleHtml = () =>
  Buffer.from(
    `<!doctype html><html><head><title>Birds of the city</title><script>window.trackingPixel = "tracker-script-text";</script></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop navigation link</a></nav>
<article><h1>Falcons in the city</h1>
<p>${"Peregrine falcons hunt pigeons between the office towers and reach more than 300 km/h in a dive. ".repeat(4)}</p>
<h2>Where to watch</h2><ul><li>The cathedral's north tower</li><li>The old grain silo</li></ul>
<table><tr><th>Site</th><th>Pairs</th></tr><tr><td>Cathedral</td><td>2</td></tr></table></article>
<footer>Copyright footer of the city bird club</footer></body></html>`,
    "utf8",
  );
