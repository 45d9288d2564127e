import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import { scannedPdf, threePagePdf } from "../helpers/sample-files.js";
import type { TestTenant } from "../helpers/test-service.js";
import {
  ARTIFACTS,
  axeViolations,
  CHROMIUM_PATH,
  type DashboardBed,
  HAS_CHROMIUM,
  restAs,
  seriousViolations,
  signedInContext,
  startDashboardBed,
} from "./dashboard-kit.js";

// "Add document" in the explorer (issue 49 item 6, issue 48 item 1): a Markdown file read in Chromium
// and sent to POST /api/documents with the session and its X-CSRF-Token, checked again through the
// REST API; a PDF sent as a file to POST /api/documents/upload and found with its page; a scan's
// refusal shown with the server's reason; an image refused before anything is sent; German.

const flow = HAS_CHROMIUM ? test.serial : test.skip;
if (!HAS_CHROMIUM) {
  test.skip(`document upload browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`, () => {});
}

let bed: DashboardBed;
let context: BrowserContext;
let page: Page;
let tenant: TestTenant;
const axeReport: Record<string, string[]> = {};

async function capture(name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}dashboard-upload-${name}.png`, fullPage: true });
  axeReport[name] = seriousViolations(await axeViolations(page));
}

/** A REST call with the workspace's admin token (what a script would see). */
const rest = <T>(method: string, path: string, body?: unknown) =>
  restAs<T>(bed.url, tenant.token, method, path, body);

interface Recent {
  items: { id: string; title: string; kind: string }[];
}

test.before(async () => {
  if (!HAS_CHROMIUM) return;
  bed = await startDashboardBed();
  tenant = await bed.service.createTenant({ plan: "api" });
  context = await signedInContext(bed, tenant.tenantId);
  page = await context.newPage();
});

test.after.always(async () => {
  await context?.close();
  await bed?.stop();
});

const NOTES = [
  "# Quarterly planning",
  "",
  "The harbour crane inspection moves to Thursday, 14 March.",
  "",
  "- Budget owner: Ilse Brandt",
  "- Next review: end of April",
].join("\n");

flow("a Markdown file: the title comes from its name, it is queued, then stored and listed", async (t) => {
  await page.goto(`${bed.url}/dashboard/explorer`);
  const form = page.getByTestId("add-document");
  await form.getByRole("heading", { name: "Add a document" }).waitFor();
  const send = form.getByRole("button", { name: "Add document" });
  t.true(await send.isDisabled(), "nothing to send yet");

  await form.getByLabel("File (PDF, Word, HTML, Markdown or text)").setInputFiles({
    name: "Quarterly planning.md",
    mimeType: "text/markdown",
    buffer: Buffer.from(NOTES, "utf8"),
  });
  await form.getByTestId("doc-file").getByText("“Quarterly planning.md” read").waitFor();
  t.is(await form.getByLabel("Document title").inputValue(), "Quarterly planning");
  // The file replaces the text field.
  t.is(await form.getByLabel("Text", { exact: true }).count(), 0);
  await capture("file-chosen");

  const sent = page.waitForRequest((r) => r.url().endsWith("/api/documents") && r.method() === "POST");
  await send.click();
  const request = await sent;
  // Through the dashboard session with its anti-CSRF header, not a token.
  t.truthy(request.headers()["x-csrf-token"]);
  t.is(request.headers().authorization, undefined);
  t.deepEqual(request.postDataJSON(), {
    title: "Quarterly planning",
    content: NOTES,
    source: "Quarterly planning.md",
  });
  const progress = form.getByTestId("doc-progress");
  t.regex((await progress.textContent()) ?? "", /^(Queued|Stored): “Quarterly planning”/);
  await form.getByText("Stored: “Quarterly planning” is indexed").waitFor({ timeout: 60_000 });
  // The form starts over; the newest list was read again and shows the document.
  t.is(await form.getByLabel("Document title").inputValue(), "");
  const listed = page.locator("ul.recent").getByRole("button", { name: "Quarterly planning" });
  await listed.waitFor();
  await capture("stored");

  // What a script sees: the document with that title and the file's text, found by recall.
  const recent = await rest<Recent>("GET", "/api/v1/memory/recent?k=50");
  const doc = recent.body.items.find((item) => item.title === "Quarterly planning");
  t.truthy(doc, JSON.stringify(recent.body.items));
  t.is(doc?.kind, "document");
  const versions = await rest<{ versions: { content?: string }[] }>(
    "GET",
    `/api/v1/memory/${doc?.id}/versions?content=true`,
  );
  t.is(versions.body.versions.at(-1)?.content, NOTES);
  const recall = await rest<{ hits: { memoryId: string }[] }>("POST", "/api/v1/memory/recall", {
    query: "harbour crane inspection",
    k: 5,
  });
  t.true(
    recall.body.hits.some((hit) => hit.memoryId === doc?.id),
    JSON.stringify(recall.body.hits),
  );
});

flow("a PDF is uploaded as a file, stored at once, listed, and recalled with its page", async (t) => {
  const form = page.getByTestId("add-document");
  await form.getByLabel("File (PDF, Word, HTML, Markdown or text)").setInputFiles({
    name: "report-2026.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from(threePagePdf()),
  });
  await form.getByTestId("doc-file").getByText("“report-2026.pdf” chosen").waitFor();
  t.is(await form.getByLabel("Document title").inputValue(), "report-2026");
  const sent = page.waitForRequest((r) => r.url().endsWith("/api/documents/upload") && r.method() === "POST");
  await form.getByRole("button", { name: "Add document" }).click();
  const request = await sent;
  t.truthy(request.headers()["x-csrf-token"]);
  t.is(request.headers().authorization, undefined);
  t.regex(request.headers()["content-type"] ?? "", /^multipart\/form-data; boundary=/);
  await form.getByText("Stored: “report-2026” is indexed").waitFor({ timeout: 60_000 });
  await page.locator("ul.recent").getByRole("button", { name: "report-2026" }).waitFor();
  await capture("pdf-stored");

  const recall = await rest<{ hits: { memoryId: string; title: string; page?: number }[] }>(
    "POST",
    "/api/v1/memory/recall",
    { query: "peregrine falcons north tower", k: 5 },
  );
  const hit = recall.body.hits.find((h) => h.title === "report-2026");
  t.truthy(hit, JSON.stringify(recall.body.hits));
  t.is(hit?.page, 1);
});

flow("a scan shows the server's reason; an image is refused in the page and nothing is sent", async (t) => {
  const form = page.getByTestId("add-document");
  const picker = form.getByLabel("File (PDF, Word, HTML, Markdown or text)");
  await picker.setInputFiles({
    name: "scan.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from(scannedPdf()),
  });
  const answer = page.waitForResponse((r) => r.url().endsWith("/api/documents/upload"));
  await form.getByRole("button", { name: "Add document" }).click();
  t.is((await answer).status(), 422);
  await form.getByText(/no text could be extracted/).waitFor();
  await capture("scan-refused");

  let posted = 0;
  const count = (r: { url(): string; method(): string }) => {
    if (/\/api\/documents(\/upload)?$/.test(r.url()) && r.method() === "POST") posted++;
  };
  page.on("request", count);
  await picker.setInputFiles({
    name: "photo.jpg",
    mimeType: "image/jpeg",
    buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  });
  const alert = form.getByRole("alert").filter({ hasText: "photo.jpg" });
  await alert.waitFor();
  t.regex(
    (await alert.textContent()) ?? "",
    /^“photo\.jpg” cannot be added: only PDF, Word \(\.docx\), HTML, Markdown \(\.md\) and plain-text \(\.txt\) files can be read/,
  );
  t.is(await picker.inputValue(), "");
  await capture("refused");
  page.off("request", count);
  t.is(posted, 0);
  const recent = await rest<Recent>("GET", "/api/v1/memory/recent?k=50");
  t.false(recent.body.items.some((item) => /scan|photo/.test(item.title)));
});

flow("in German: typed text is added as a document and stored", async (t) => {
  await page.getByRole("button", { name: "Deutsch" }).click();
  const form = page.getByTestId("add-document");
  await form.getByRole("heading", { name: "Dokument hinzufügen" }).waitFor();
  await form.getByLabel("Titel des Dokuments").fill("Besuchsregeln");
  await form.getByLabel("Text", { exact: true }).fill("Besucher melden sich am Empfang im Erdgeschoss an.");
  await form.getByRole("button", { name: "Dokument hinzufügen" }).click();
  await form.getByText("Gespeichert: „Besuchsregeln“ ist indexiert").waitFor({ timeout: 60_000 });
  await page.locator("ul.recent").getByRole("button", { name: "Besuchsregeln" }).waitFor();
  await capture("de-stored");
  const recent = await rest<Recent>("GET", "/api/v1/memory/recent?k=50");
  t.true(recent.body.items.some((item) => item.title === "Besuchsregeln" && item.kind === "document"));
  await page.getByRole("button", { name: "English" }).click();
});

flow("at the plan's memory limit the 402 becomes the plan notice with its upgrade link", async (t) => {
  const full = await bed.service.createTenant({
    plan: "free",
    limitsOverride: { memoryLimit: 1, requestsPerMinutePerToken: 100_000 },
  });
  const stored = await fetch(`${bed.url}/api/v1/memory/entries`, {
    method: "POST",
    headers: { authorization: `Bearer ${full.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      memory_type: "semantic",
      title: "The one memory",
      content: "All the plan allows.",
    }),
  });
  t.is(stored.status, 201);
  const limited = await signedInContext(bed, full.tenantId);
  const other = await limited.newPage();
  try {
    await other.goto(`${bed.url}/dashboard/explorer`);
    const form = other.getByTestId("add-document");
    await form.getByLabel("Document title").fill("One too many");
    await form.getByLabel("Text", { exact: true }).fill("This would be the second memory.");
    const answer = other.waitForResponse((r) => r.url().endsWith("/api/documents"));
    await form.getByRole("button", { name: "Add document" }).click();
    t.is((await answer).status(), 402);
    const gate = form.getByTestId("plan-gate");
    await gate.waitFor();
    t.regex(
      (await gate.textContent()) ?? "",
      /^Storing more memories: available on the \w+ plan and higher\. Your workspace has the Free plan\./,
    );
    t.is(
      await gate.getByRole("link", { name: "See plans and upgrade" }).getAttribute("href"),
      "/dashboard/billing",
    );
    t.is(await form.getByTestId("doc-progress").count(), 0, "nothing queued");
    await other.screenshot({ path: `${ARTIFACTS}dashboard-upload-limit.png`, fullPage: true });
    axeReport.limit = seriousViolations(await axeViolations(other));
  } finally {
    await limited.close();
  }
});

flow("accessibility: axe-core finds no serious or critical violation on the upload views", (t) => {
  const found = Object.entries(axeReport).flatMap(([name, lines]) => lines.map((l) => `${name}: ${l}`));
  t.log(`${Object.keys(axeReport).length} views checked: ${Object.keys(axeReport).join(", ")}`);
  t.deepEqual(found, []);
});
