import { createServer } from "node:net";
import { Code } from "@connectrpc/connect";
import test from "ava";
import { scannedPdf, threePagePdf } from "../helpers/sample-files.js";
import { type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { UNTHROTTLED } from "../mcp/post-mcp.js";
import { switchableModels } from "../mcp/switchable-embedder.js";
import { errorOf, rest } from "../rest/rest-client.js";
import { expectFailure, ingestClient, startIngestService } from "./ingest-test-kit.js";
import { articlePage, startWebPageServer, type WebPageServer } from "./web-page-server.js";

// Web pages by URL (issue 48 item 2, docs/ingest.md "Web pages", ADR 0510) over REST POST
// /api/v1/documents/fetch and gRPC IngestService.FetchWebPage, against a local web server: the
// service runs with WEB_FETCH_ALLOW_PRIVATE_URLS so it may reach 127.0.0.1 (as the webhook tests
// allow their receiver); web-page-guard.test.ts shows the same URLs refused without it.

let service: TestService;
let pages: WebPageServer;

test.before(async () => {
  pages = await startWebPageServer();
  service = await startIngestService({
    models: switchableModels(),
    env: {
      WEB_FETCH_ALLOW_PRIVATE_URLS: "true",
      WEB_FETCH_TIMEOUT_MS: "1500",
      WEB_FETCH_MAX_BYTES: "1048576",
    },
  });
});

test.after.always(async () => {
  await service?.stop();
  await pages?.close();
});

interface Fetched {
  memoryId: string;
  title: string;
  status: string;
  chunksWritten: number;
  unchanged?: boolean;
  replacedDocumentIds: string[];
  url: string;
  pageType: string;
  characters: number;
}

const tenantWithWrites = () => service.createTenant({ limitsOverride: UNTHROTTLED });
const fetchPage = (tenant: TestTenant, body: unknown) =>
  rest(service.httpUrl, "/api/v1/documents/fetch", { token: tenant.token, body });
const word = () => `zq${Math.random().toString(36).slice(2, 10)}`;

async function currentDocuments(tenant: TestTenant) {
  return service.storage.db.withTenant(
    tenant.tenantId,
    (tx) =>
      tx<{ id: string; title: string; source: string | null; content: string; status: string }[]>`
      select id, title, source, content, status from memories
      where tenant_id = ${tenant.tenantId} and kind = 'document' and valid_to is null order by recorded_at`,
  );
}

async function recall(tenant: TestTenant, query: string) {
  const answer = await rest(service.httpUrl, "/api/v1/memory/recall", {
    token: tenant.token,
    body: { query, k: 10 },
  });
  return (answer.body as { hits: { memoryId: string; title: string; snippet: string }[] }).hits;
}

test("REST: an HTML page is stored as its main content in Markdown — no navigation, header, footer, aside or script", async (t) => {
  const tenant = await tenantWithWrites();
  const main = word();
  const furniture = word();
  pages.route(`/article-${main}`, {
    body: articlePage({
      title: `Bakery ${main}`,
      heading: "Our bakery",
      paragraphs: [
        `The ${main} bakery bakes sourdough bread every morning with flour from the mill next door.`,
        "Our croissants are folded by hand, and the rye bread rests for two days before it is baked.",
        "We deliver to cafés in the old town on weekdays, and the shop opens at seven in the morning.",
      ],
      furnitureWord: furniture,
    }),
  });
  const answer = await fetchPage(tenant, { url: `${pages.url}/article-${main}` });
  t.is(answer.status, 201, answer.text);
  const body = answer.body as Fetched;
  t.like(body, {
    title: `Bakery ${main}`,
    status: "indexed",
    url: `${pages.url}/article-${main}`,
    pageType: "html",
  });
  t.true(body.chunksWritten > 0);

  const [document] = await currentDocuments(tenant);
  t.is(document?.source, `${pages.url}/article-${main}`);
  t.true(document?.content.includes(`The ${main} bakery bakes sourdough`), document?.content);
  t.false(document?.content.includes(furniture), "no furniture word in the stored text");
  // Structure survives into the chunker: a heading, list items and a table row as Markdown.
  t.regex(document?.content ?? "", /^#{1,2} Opening hours$/m);
  t.regex(document?.content ?? "", /^-\s+Monday to Friday$/m);
  t.regex(document?.content ?? "", /^\| Monday \| 9 to 17 \|$/m);
  t.is(body.characters, document?.content.length ?? -1);

  // The webhook event of any new document (the outbox the dispatcher delivers from).
  const events = await service.storage.db.sql<{ event: string }[]>`
    select event from outbox where tenant_id = ${tenant.tenantId} and payload->>'documentId' = ${body.memoryId}`;
  t.deepEqual(
    events.map((e) => e.event),
    ["memory.created"],
  );

  const hits = await recall(tenant, `${main} sourdough bread`);
  t.is(hits[0]?.memoryId, body.memoryId);
  t.true(hits[0]?.snippet.includes(main), hits[0]?.snippet);
  const furnitureHits = await recall(tenant, `${furniture}nav ${furniture}footer ${furniture}script`);
  t.false(
    furnitureHits.some((hit) => hit.snippet.includes(furniture)),
    "recall never shows navigation, footer or script text",
  );
});

test("REST: fetching the same URL again replaces its document — one current document with the new text", async (t) => {
  const tenant = await tenantWithWrites();
  const path = `/living-${word()}`;
  const before = word();
  const after = word();
  const paragraphs = (w: string) => [
    `Today's special is ${w} soup with fresh bread from the oven, served until two in the afternoon.`,
    "Reservations are taken by phone; groups of more than eight people please call a day ahead.",
  ];
  pages.route(path, {
    body: articlePage({
      title: "Lunch menu",
      heading: "Menu",
      paragraphs: paragraphs(before),
      furnitureWord: word(),
    }),
  });
  const first = (await fetchPage(tenant, { url: `${pages.url}${path}` })).body as Fetched;
  t.like(first, { status: "indexed", title: "Lunch menu" });

  // Same text again: nothing new is written.
  const same = await fetchPage(tenant, { url: `${pages.url}${path}` });
  t.is(same.status, 200, same.text);
  t.like(same.body as Fetched, { memoryId: first.memoryId, unchanged: true });

  // The page changes, its <title> too: the URL's document is still the one replaced.
  pages.route(path, {
    body: articlePage({
      title: "Lunch menu (updated)",
      heading: "Menu",
      paragraphs: paragraphs(after),
      furnitureWord: word(),
    }),
  });
  const second = await fetchPage(tenant, { url: `${pages.url}${path}` });
  t.is(second.status, 201, second.text);
  const refetched = second.body as Fetched;
  t.not(refetched.memoryId, first.memoryId);
  t.deepEqual(refetched.replacedDocumentIds, [first.memoryId]);
  t.is(refetched.title, "Lunch menu", "the document keeps its title: the URL names the document");

  const documents = await currentDocuments(tenant);
  t.is(documents.length, 1);
  t.is(documents[0]?.id, refetched.memoryId);
  t.true(documents[0]?.content.includes(after));
  t.false(documents[0]?.content.includes(before));
  t.true((await recall(tenant, `${after} soup`)).some((hit) => hit.memoryId === refetched.memoryId));
  t.false((await recall(tenant, `${before} soup`)).some((hit) => hit.snippet.includes(before)));
});

test("REST: two pages with the same <title> are two documents; a given title names the document", async (t) => {
  const tenant = await tenantWithWrites();
  const text = (w: string) => [
    `The ${w} page explains how to install the product on a server in a few minutes.`,
  ];
  const a = `/docs-a-${word()}`;
  const b = `/docs-b-${word()}`;
  pages.route(a, {
    body: articlePage({
      title: "Documentation",
      heading: "Install",
      paragraphs: text(word()),
      furnitureWord: word(),
    }),
  });
  pages.route(b, {
    body: articlePage({
      title: "Documentation",
      heading: "Install",
      paragraphs: text(word()),
      furnitureWord: word(),
    }),
  });
  const first = (await fetchPage(tenant, { url: `${pages.url}${a}` })).body as Fetched;
  const second = (await fetchPage(tenant, { url: `${pages.url}${b}` })).body as Fetched;
  t.is(first.title, "Documentation");
  t.is(second.title, `Documentation (${pages.url}${b})`);
  t.deepEqual(second.replacedDocumentIds, []);
  const named = (await fetchPage(tenant, { url: `${pages.url}${a}`, title: "Install guide" }))
    .body as Fetched;
  t.is(named.title, "Install guide");
  t.is((await currentDocuments(tenant)).length, 3);
});

test("REST: redirects are followed (source = the final URL); Markdown and plain text are stored as served", async (t) => {
  const tenant = await tenantWithWrites();
  const w = word();
  pages.route(`/old-${w}`, { status: 301, body: "", headers: { location: `/hop-${w}` } });
  pages.route(`/hop-${w}`, { status: 302, body: "", headers: { location: `${pages.url}/notes-${w}.md` } });
  pages.route(`/notes-${w}.md`, {
    type: "text/plain; charset=utf-8",
    body: `# Release notes ${w}\n\n- faster imports\n- a new export format\n`,
  });
  const moved = await fetchPage(tenant, { url: `${pages.url}/old-${w}#section` });
  t.is(moved.status, 201, moved.text);
  t.like(moved.body as Fetched, {
    url: `${pages.url}/notes-${w}.md`,
    pageType: "markdown",
    title: `${pages.url}/notes-${w}.md`,
  });
  const [notes] = await currentDocuments(tenant);
  t.is(notes?.source, `${pages.url}/notes-${w}.md`);
  t.is(notes?.content, `# Release notes ${w}\n\n- faster imports\n- a new export format`);

  // Latin-1 text, as its Content-Type says.
  pages.route(`/latin1-${w}`, {
    type: "text/plain; charset=iso-8859-1",
    body: Buffer.from(`Grüße aus Köln ${w}`, "latin1"),
  });
  const latin = await fetchPage(tenant, { url: `${pages.url}/latin1-${w}`, title: `Greetings ${w}` });
  t.is(latin.status, 201, latin.text);
  t.like(latin.body as Fetched, { pageType: "text", characters: `Grüße aus Köln ${w}`.length });
});

test("REST: a PDF by URL is read by the upload's extractor; recall cites the hit's page", async (t) => {
  const tenant = await tenantWithWrites();
  const path = `/report-${word()}.pdf`;
  // Served as application/octet-stream: the bytes say PDF.
  pages.route(path, { type: "application/octet-stream", body: Buffer.from(threePagePdf()) });
  const answer = await fetchPage(tenant, { url: `${pages.url}${path}` });
  t.is(answer.status, 201, answer.text);
  t.like(answer.body as Fetched, { pageType: "pdf", title: `${pages.url}${path}` });
  const hit = await rest(service.httpUrl, "/api/v1/memory/recall", {
    token: tenant.token,
    body: { query: "peregrine falcons north tower", k: 3 },
  });
  const [first] = (hit.body as { hits: { memoryId: string; page?: number; pageEnd?: number }[] }).hits;
  t.is(first?.memoryId, (answer.body as Fetched).memoryId);
  // The three short pages are one chunk: it begins on page 1 and ends on page 3.
  t.like(first, { page: 1, pageEnd: 3 });
});

test("REST: a page over 10,000 characters is queued (202) and indexed by the worker", async (t) => {
  const tenant = await tenantWithWrites();
  const w = word();
  const paragraphs = Array.from(
    { length: 120 },
    (_, i) => `Paragraph ${i} of the ${w} handbook describes one more step of the onboarding in detail.`,
  );
  pages.route(`/handbook-${w}`, {
    body: articlePage({ title: `Handbook ${w}`, heading: "Handbook", paragraphs, furnitureWord: word() }),
  });
  const answer = await fetchPage(tenant, { url: `${pages.url}/handbook-${w}` });
  t.is(answer.status, 202, answer.text);
  const body = answer.body as Fetched;
  t.is(body.status, "queued");
  t.true(body.characters > 10_000);
  await waitFor(
    async () =>
      (await currentDocuments(tenant)).find((d) => d.id === body.memoryId)?.status === "indexed"
        ? true
        : undefined,
    { what: "the queued page indexed" },
  );
  t.true((await recall(tenant, `${w} handbook onboarding`)).some((hit) => hit.memoryId === body.memoryId));
});

test("REST: quotas hold as for any document — a new page at the limit is 402, a refetch of a stored page still replaces it", async (t) => {
  const tenant = await service.createTenant({
    plan: "free",
    limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit: 1 },
  });
  const w = word();
  const text = (v: string) => [
    `The ${v} newsletter lists this month's events in the community hall and the library.`,
  ];
  pages.route(`/news-${w}`, {
    body: articlePage({
      title: `News ${w}`,
      heading: "News",
      paragraphs: text(word()),
      furnitureWord: word(),
    }),
  });
  pages.route(`/other-${w}`, {
    body: articlePage({
      title: `Other ${w}`,
      heading: "Other",
      paragraphs: text(word()),
      furnitureWord: word(),
    }),
  });
  t.is((await fetchPage(tenant, { url: `${pages.url}/news-${w}` })).status, 201);
  const gated = await fetchPage(tenant, { url: `${pages.url}/other-${w}` });
  t.is(gated.status, 402, gated.text);
  t.like(gated.body as Record<string, unknown>, { error: "plan_upgrade_required", limit: 1, used: 1 });
  pages.route(`/news-${w}`, {
    body: articlePage({
      title: `News ${w}`,
      heading: "News",
      paragraphs: text(word()),
      furnitureWord: word(),
    }),
  });
  const refetched = await fetchPage(tenant, { url: `${pages.url}/news-${w}` });
  t.is(refetched.status, 201, refetched.text);
  t.is((refetched.body as Fetched).replacedDocumentIds.length, 1);
});

test("REST: refused and failed fetches answer their documented statuses and store nothing", async (t) => {
  const tenant = await tenantWithWrites();
  const w = word();
  pages.route(`/chain-0-${w}`, { status: 302, body: "", headers: { location: `/chain-1-${w}` } });
  for (let i = 1; i <= 6; i++)
    pages.route(`/chain-${i}-${w}`, { status: 302, body: "", headers: { location: `/chain-${i + 1}-${w}` } });
  pages.route(`/to-reserved-${w}`, {
    status: 302,
    body: "",
    headers: { location: "http://192.0.2.10/admin" },
  });
  pages.route(`/to-ftp-${w}`, { status: 302, body: "", headers: { location: "ftp://127.0.0.1/file" } });
  pages.route(`/bad-location-${w}`, { status: 302, body: "", headers: { location: "http://[::1" } });
  pages.route(`/pdf-${w}`, { type: "application/pdf", body: "%PDF-1.7\n..." });
  pages.route(`/scan-${w}`, { type: "application/pdf", body: Buffer.from(scannedPdf()) });
  pages.route(`/image-${w}`, { type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
  pages.route(`/empty-${w}`, {
    body: "<html><head><title>Nothing</title></head><body><nav>menu</nav><script>x()</script></body></html>",
  });
  pages.route(`/error-${w}`, { status: 500, type: "text/plain", body: "boom" });
  let bigClosedEarly: boolean | undefined;
  pages.route(`/big-${w}`, (_req, res) => {
    // 32 MB of text in 64 KB pieces, as fast as the reader takes them, without a Content-Length:
    // only the streamed cap can stop it, and more than the sockets' buffers hold.
    res.writeHead(200, { "content-type": "text/plain" });
    const piece = `${"lorem ipsum ".repeat(5461)}\n`;
    let sent = 0;
    const more = () => {
      while (sent < 512) {
        sent++;
        if (!res.write(piece)) return void res.once("drain", more);
      }
      res.end();
    };
    res.on("close", () => {
      bigClosedEarly = !res.writableFinished;
    });
    more();
  });
  pages.route(`/declared-big-${w}`, { type: "text/plain", body: "x".repeat(1_100_000) });
  pages.route(`/slow-${w}`, (_req, res) => {
    // Headers at once, then nothing: the body never arrives within the time limit.
    res.writeHead(200, { "content-type": "text/html" });
    res.write("<html><body>");
  });
  pages.route(`/silent-${w}`, () => undefined);

  const closedPort = await portNobodyListensOn();
  const cases: [string, unknown, number, RegExp][] = [
    ["not a URL", { url: "not a url" }, 400, /url is not a valid absolute URL/],
    ["another scheme", { url: "file:///etc/passwd" }, 400, /url must use http or https/],
    ["credentials", { url: `http://user:secret@127.0.0.1:1/` }, 400, /url must not contain credentials/],
    ["reserved address", { url: "http://0.0.0.0/" }, 400, /0\.0\.0\.0 is unspecified/],
    [
      "redirect to a reserved address",
      { url: `${pages.url}/to-reserved-${w}` },
      400,
      /redirect to http:\/\/192\.0\.2\.10\/admin refused: 192\.0\.2\.10 is reserved/,
    ],
    [
      "redirect to another scheme",
      { url: `${pages.url}/to-ftp-${w}` },
      400,
      /redirect to ftp:.* must use http or https/,
    ],
    ["too many redirects", { url: `${pages.url}/chain-0-${w}` }, 502, /more than 5 redirects/],
    ["a redirect to no URL", { url: `${pages.url}/bad-location-${w}` }, 502, /redirected to an invalid URL/],
    ["an error status", { url: `${pages.url}/error-${w}` }, 502, /answered HTTP 500/],
    [
      "nobody listening",
      { url: `http://127.0.0.1:${closedPort}/` },
      502,
      /could not be reached \(ECONNREFUSED\)/,
    ],
    [
      "a broken PDF",
      { url: `${pages.url}/pdf-${w}` },
      415,
      /PDF cannot be read.*HTML, Markdown, plain text, PDF/,
    ],
    ["a scanned PDF", { url: `${pages.url}/scan-${w}` }, 422, /no text/],
    ["an image", { url: `${pages.url}/image-${w}` }, 415, /the page is image\/png, which is not read here/],
    ["no text", { url: `${pages.url}/empty-${w}` }, 422, /holds no text/],
    ["streamed past the cap", { url: `${pages.url}/big-${w}` }, 413, /larger than 1 MB/],
    ["declared past the cap", { url: `${pages.url}/declared-big-${w}` }, 413, /larger than 1 MB/],
    ["a body that stalls", { url: `${pages.url}/slow-${w}` }, 504, /did not arrive within 1\.5 s/],
    ["no answer at all", { url: `${pages.url}/silent-${w}` }, 504, /did not arrive within 1\.5 s/],
    ["empty url", { url: "" }, 400, /url/],
  ];
  for (const [what, body, status, message] of cases) {
    const answer = await fetchPage(tenant, body);
    t.is(answer.status, status, `${what}: ${answer.text}`);
    t.regex(errorOf(answer), message, what);
  }
  t.true(
    await waitFor(() => bigClosedEarly, { what: "the oversized response closed" }),
    "the oversized body was cut off, not read to its end",
  );
  t.false(
    pages.requests.some((p) => p.startsWith("/chain-6")),
    "the sixth redirect is not followed",
  );
  t.is((await currentDocuments(tenant)).length, 0, "nothing stored");
});

test("gRPC: FetchWebPage stores the page and answers the documented codes; write scope required", async (t) => {
  const tenant = await tenantWithWrites();
  const w = word();
  pages.route(`/grpc-${w}`, {
    type: "text/markdown",
    body: `# Garden ${w}\n\nWater the tomatoes every evening in July.`,
  });
  const client = ingestClient(service, tenant.token);
  const answer = await client.fetchWebPage({ url: `${pages.url}/grpc-${w}` });
  t.is(answer.url, `${pages.url}/grpc-${w}`);
  t.is(answer.pageType, "markdown");
  t.is(answer.memory?.title, `${pages.url}/grpc-${w}`);

  const refused = await expectFailure(
    t,
    client.fetchWebPage({ url: "http://0.0.0.0/" }),
    Code.InvalidArgument,
  );
  t.like(refused, { reason: "validation", field: "url" });
  const failed = await expectFailure(
    t,
    client.fetchWebPage({ url: `${pages.url}/missing-${w}` }),
    Code.Unavailable,
  );
  t.like(failed, { reason: "fetch_failed", field: "url" });
  pages.route(`/grpc-slow-${w}`, () => undefined);
  const slow = await expectFailure(
    t,
    client.fetchWebPage({ url: `${pages.url}/grpc-slow-${w}` }),
    Code.DeadlineExceeded,
  );
  t.is(slow.reason, "fetch_timeout");
  pages.route(`/grpc-pdf-${w}`, { type: "application/pdf", body: "%PDF-1.7" });
  const pdf = await expectFailure(
    t,
    client.fetchWebPage({ url: `${pages.url}/grpc-pdf-${w}` }),
    Code.InvalidArgument,
  );
  t.is(pdf.reason, "unsupported_media_type");

  const reader = await tenant.issueToken(["read"], "reader");
  await expectFailure(
    t,
    ingestClient(service, reader.token).fetchWebPage({ url: `${pages.url}/grpc-${w}` }),
    Code.PermissionDenied,
  );
});

/** A port that was free a moment ago: connecting to it is refused. */
async function portNobodyListensOn(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
