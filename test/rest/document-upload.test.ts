import test, { type ExecutionContext } from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import {
  articleHtml,
  longPdf,
  scannedPdf,
  structuredDocx,
  threePagePdf,
  zipBombDocx,
} from "../helpers/sample-files.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { rest } from "./rest-client.js";

// POST /api/v1/documents/upload with fetch and FormData, as an integration would send a file
// (docs/ingest.md "Files"): each type stored and recalled, a PDF hit with its page, and every
// documented refusal (413, 415, 422, 400) leaving nothing stored.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels() });
  tenant = await service.createTenant({ plan: "api" });
});

test.after.always(async () => {
  await service?.stop();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function upload(
  file: Uint8Array | undefined,
  filename: string,
  fields: Record<string, string> = {},
  token: string | null = tenant.token,
): Promise<Answer> {
  const form = new FormData();
  if (file !== undefined) form.append("file", new Blob([file as Uint8Array<ArrayBuffer>]), filename);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const res = await fetch(`${service.httpUrl}/api/v1/documents/upload`, {
    method: "POST",
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function memoryCount(of: TestTenant): Promise<number> {
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${of.tenantId}`;
  return row?.n ?? -1;
}

test("a PDF is stored (201) under its file name, then unchanged (200); recall names its page", async (t) => {
  const first = await upload(threePagePdf(), "report-2026.pdf", {
    source: "share/report-2026.pdf",
    metadata: '{"team":"birds"}',
  });
  t.is(first.status, 201, JSON.stringify(first.body));
  t.like(first.body, { title: "report-2026.pdf", status: "indexed", fileType: "pdf", pages: 3 });
  const again = await upload(threePagePdf(), "report-2026.pdf");
  t.is(again.status, 200);
  t.like(again.body, { unchanged: true, memoryId: first.body.memoryId });

  const recall = await rest(service.httpUrl, "/api/v1/memory/recall", {
    token: tenant.token,
    body: { query: "peregrine falcons north tower", k: 3 },
  });
  t.is(recall.status, 200);
  const hits = (recall.body as { hits: { memoryId: string; page?: number; pageEnd?: number }[] }).hits;
  const hit = hits.find((h) => h.memoryId === first.body.memoryId);
  t.like(hit, { page: 1, pageEnd: 3 });
});

test("DOCX and HTML are stored as Markdown; a long PDF is queued (202) and indexed by the worker", async (t) => {
  const docx = await upload(structuredDocx(), "kestrel.docx", { title: "Project Kestrel plan" });
  t.is(docx.status, 201, JSON.stringify(docx.body));
  t.like(docx.body, { title: "Project Kestrel plan", fileType: "docx" });
  const html = await upload(articleHtml(), "birds.html");
  t.is(html.status, 201, JSON.stringify(html.body));
  t.like(html.body, { fileType: "html" });
  const long = await upload(longPdf(), "harbour-log.pdf");
  t.is(long.status, 202, JSON.stringify(long.body));
  t.like(long.body, { status: "queued", pages: 30 });
  await waitFor(
    async () => {
      const [row] = await service.storage.db.sql<{ status: string }[]>`
        select status from memories where id = ${String(long.body.memoryId)}`;
      return row?.status === "indexed" ? true : undefined;
    },
    { what: "the worker to index the PDF", timeoutMs: 60_000 },
  );
  const recall = await rest(service.httpUrl, "/api/v1/memory/recall", {
    token: tenant.token,
    body: { query: "lighthouse keeper", k: 5 },
  });
  const hit = (recall.body as { hits: { memoryId: string; page?: number; pageEnd?: number }[] }).hits.find(
    (h) => h.memoryId === long.body.memoryId,
  );
  t.truthy(hit);
  t.true((hit?.page ?? 99) <= 23 && (hit?.pageEnd ?? 0) >= 23);
});

async function refusedWith(t: ExecutionContext, answer: Promise<Answer>, status: number, message: RegExp) {
  const { status: got, body } = await answer;
  t.is(got, status, JSON.stringify(body));
  t.regex(String(body.error), message);
}

test("every refusal has its status and leaves nothing stored", async (t) => {
  const fresh = await service.createTenant({ plan: "api" });
  const send = (file: Uint8Array | undefined, name: string, fields: Record<string, string> = {}) =>
    upload(file, name, fields, fresh.token);
  await refusedWith(t, send(new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61), "big.txt"), 413, /10 MB/);
  await refusedWith(
    t,
    send(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), "photo.jpg"),
    415,
    /PDF \(with a text layer\), DOCX, HTML, Markdown or plain text/,
  );
  await refusedWith(t, send(scannedPdf(), "scan.pdf"), 422, /no text could be extracted.*OCR is not offered/);
  await refusedWith(t, send(zipBombDocx(), "bomb.docx"), 413, /zip bomb/);
  await refusedWith(t, send(undefined, "", { title: "x" }), 400, /file: is required/);
  await refusedWith(
    t,
    send(Buffer.from("x"), "x.txt", { metadata: "[1]" }),
    400,
    /metadata: must be a JSON object/,
  );
  await refusedWith(t, send(Buffer.from("x"), "x.txt", { tags: "a" }), 400, /unknown field 'tags'/);
  const json = await rest(service.httpUrl, "/api/v1/documents/upload", {
    token: fresh.token,
    body: { content: "x" },
  });
  t.is(json.status, 415);
  t.regex(String((json.body as { error: string }).error), /multipart\/form-data/);
  const anonymous = await upload(Buffer.from("x"), "x.txt", {}, null);
  t.is(anonymous.status, 401);
  t.is(await memoryCount(fresh), 0);
});
