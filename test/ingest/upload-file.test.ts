import { Code } from "@connectrpc/connect";
import test, { type ExecutionContext } from "ava";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import { makeZip } from "../helpers/make-docx.js";
import {
  articleHtml,
  deeplyNestedPdf,
  hugePageCountPdf,
  longPdf,
  lyingZipBombDocx,
  scannedPdf,
  structuredDocx,
  threePagePdf,
  zipBombDocx,
} from "../helpers/sample-files.js";
import { type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { clientsFor } from "../recall/recall-test-kit.js";
import { expectFailure, memoriesTitled, readMemory, startIngestService } from "./ingest-test-kit.js";

// IngestService/UploadFile through the real gRPC client (docs/ingest.md "Files"): each type's text
// reaches recall, a PDF hit names its page, and every refused file leaves nothing stored.

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

async function memoryCount(tenant: TestTenant): Promise<number> {
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.tenantId}`;
  return row?.n ?? -1;
}

test("a PDF is stored under its file name and a recall hit names the page it was found on", async (t) => {
  const tenant = await service.createTenant();
  const clients = clientsFor(service, tenant);
  const result = await clients.ingest.uploadFile({
    data: threePagePdf(),
    filename: "report-2026.pdf",
    contentType: "application/pdf",
    source: "share/reports/report-2026.pdf",
    metadata: { department: "wildlife" },
  });
  t.is(result.fileType, "pdf");
  t.is(result.pages, 3);
  t.is(result.memory?.status, IndexStatus.INDEXED);
  t.is(result.memory?.title, "report-2026.pdf");
  const row = await readMemory(service, result.memory?.memoryId ?? "");
  // Larger type became headings, bullet glyphs list items, each page after a blank line.
  t.regex(row?.content ?? "", /^# Annual report 2026$/m);
  t.regex(
    row?.content ?? "",
    /^## Wildlife survey\n\nPeregrine falcons nest on the north tower of the cathedral\.\n- two breeding pairs\n- one fledgling ringed$/m,
  );
  t.is(row?.source, "share/reports/report-2026.pdf");
  t.like(row?.metadata, { department: "wildlife", file: { name: "report-2026.pdf", type: "pdf", pages: 3 } });

  const { hits } = await clients.recall.recall({ query: "where do the peregrine falcons nest", k: 3 });
  const hit = hits.find((h) => h.memoryId === result.memory?.memoryId);
  t.truthy(hit);
  // The three short pages fit into one chunk: it begins on page 1 and ends on page 3.
  t.is(hit?.page, 1);
  t.is(hit?.pageEnd, 3);
});

test("a long PDF is queued, indexed by the worker, and its hit cites the right page", async (t) => {
  const tenant = await service.createTenant();
  const clients = clientsFor(service, tenant);
  const result = await clients.ingest.uploadFile({
    data: longPdf(),
    filename: "harbour-log.pdf",
    contentType: "",
  });
  t.is(result.memory?.status, IndexStatus.QUEUED);
  t.true(result.characters > 10_000);
  const id = result.memory?.memoryId ?? "";
  await waitFor(async () => ((await readMemory(service, id))?.status === "indexed" ? true : undefined), {
    what: "the worker to index the PDF",
    timeoutMs: 60_000,
  });
  const { hits } = await clients.recall.recall({ query: "lighthouse keeper logs passing ships", k: 3 });
  const hit = hits.find((h) => h.memoryId === id);
  t.truthy(hit);
  t.true((hit?.page ?? 0) <= 23 && (hit?.pageEnd ?? 0) >= 23, `pages ${hit?.page}–${hit?.pageEnd}`);
  t.true((hit?.pageEnd ?? 0) - (hit?.page ?? 0) <= 3);
});

test("a DOCX keeps its headings, list and table as Markdown and is found by recall", async (t) => {
  const tenant = await service.createTenant();
  const clients = clientsFor(service, tenant);
  const result = await clients.ingest.uploadFile({
    data: structuredDocx(),
    filename: "kestrel.docx",
    contentType: "",
  });
  t.is(result.fileType, "docx");
  t.is(result.pages, undefined);
  const content = (await readMemory(service, result.memory?.memoryId ?? ""))?.content ?? "";
  t.regex(content, /^# Project Kestrel$/m);
  t.regex(content, /^## Budget$/m);
  t.regex(content, /^- +Order the telemetry tags$/m);
  t.regex(content, /^\| Item \| Cost \|$/m);
  t.regex(content, /^\| Telemetry tags \| 1200 EUR \|$/m);
  const { hits } = await clients.recall.recall({ query: "when is the kickoff meeting", k: 3 });
  t.is(hits[0]?.memoryId, result.memory?.memoryId);
  t.is(hits[0]?.page, undefined);
});

test("an HTML page is reduced to its main content", async (t) => {
  const tenant = await service.createTenant();
  const clients = clientsFor(service, tenant);
  // No hint: the bytes say HTML.
  const result = await clients.ingest.uploadFile({
    data: articleHtml(),
    filename: "download",
    contentType: "application/octet-stream",
  });
  t.is(result.fileType, "html");
  const content = (await readMemory(service, result.memory?.memoryId ?? ""))?.content ?? "";
  t.regex(content, /Peregrine falcons hunt pigeons/);
  t.regex(content, /^## Where to watch$/m);
  t.regex(content, /^\| Cathedral \| 2 +\|$/m);
  for (const furniture of ["tracker-script-text", "Shop navigation link", "Copyright footer"]) {
    t.false(content.includes(furniture), furniture);
  }
});

test("Markdown and plain text are stored as they are; the same file again is unchanged, a changed one replaces it", async (t) => {
  const tenant = await service.createTenant();
  const clients = clientsFor(service, tenant);
  const markdown = "# Packing list\n\n- tent\n- stove\n";
  const first = await clients.ingest.uploadFile({
    data: Buffer.from(markdown),
    filename: "packing.md",
    contentType: "",
  });
  t.is(first.fileType, "markdown");
  t.is((await readMemory(service, first.memory?.memoryId ?? ""))?.content, markdown);
  const again = await clients.ingest.uploadFile({
    data: Buffer.from(markdown),
    filename: "packing.md",
    contentType: "",
  });
  t.true(again.memory?.unchanged);
  t.is(again.memory?.memoryId, first.memory?.memoryId);
  const changed = await clients.ingest.uploadFile({
    data: Buffer.from(`${markdown}- matches\n`),
    filename: "packing.md",
    contentType: "",
  });
  t.deepEqual(changed.memory?.replacedDocumentIds, [first.memory?.memoryId]);
  const text = await clients.ingest.uploadFile({
    data: Buffer.from("Plain notes about the ferry timetable."),
    filename: "notes.txt",
    contentType: "text/plain",
    title: "Ferry notes",
  });
  t.is(text.fileType, "text");
  t.is(text.memory?.title, "Ferry notes");
  t.is(
    (await memoriesTitled(service, tenant.tenantId, "packing.md")).filter((m) => m.valid_to === null).length,
    1,
  );
});

async function refused(t: ExecutionContext, tenant: TestTenant, data: Uint8Array, filename: string) {
  const failure = await expectFailure(
    t,
    clientsFor(service, tenant).ingest.uploadFile({ data, filename, contentType: "" }),
    Code.InvalidArgument,
  );
  t.is(await memoryCount(tenant), 0, "nothing stored");
  return failure;
}

test("refused files: too large, unsupported, no text layer, zip bombs, hostile PDFs — nothing stored", async (t) => {
  const tenant = await service.createTenant();
  const tooLarge = await refused(t, tenant, new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61), "big.txt");
  t.is(tooLarge.reason, "too_large");

  const jpeg = await refused(
    t,
    tenant,
    new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]),
    "photo.pdf",
  );
  t.is(jpeg.reason, "unsupported_media_type");
  t.regex(jpeg.message, /PDF \(with a text layer\), DOCX, HTML, Markdown or plain text/);
  const zip = await refused(
    t,
    tenant,
    makeZip([{ name: "xl/workbook.xml", data: Buffer.from("<workbook/>") }]),
    "sheet.xlsx",
  );
  t.is(zip.reason, "unsupported_media_type");

  const scan = await refused(t, tenant, scannedPdf(), "scan.pdf");
  t.is(scan.reason, "no_text");
  t.regex(scan.message, /no text could be extracted/);
  t.regex(scan.message, /OCR is not offered/);

  const bomb = await refused(t, tenant, zipBombDocx(), "bomb.docx");
  t.is(bomb.reason, "too_large");
  t.regex(bomb.message, /zip bomb/);
  const liar = await refused(t, tenant, lyingZipBombDocx(), "liar.docx");
  t.is(liar.reason, "unsupported_media_type");
  t.regex(liar.message, /more bytes than declared/);

  t.is((await refused(t, tenant, deeplyNestedPdf(), "deep.pdf")).reason, "unsupported_media_type");
  const pages = await refused(t, tenant, hugePageCountPdf(), "pages.pdf");
  t.is(pages.reason, "too_large");
  t.regex(pages.message, /3000 pages/);

  const reserved = await expectFailure(
    t,
    clientsFor(service, tenant).ingest.uploadFile({
      data: Buffer.from("x"),
      filename: "x.txt",
      metadata: { file: "mine" },
    }),
    Code.InvalidArgument,
  );
  t.is(reserved.field, "metadata");
  t.is(await memoryCount(tenant), 0);
});
