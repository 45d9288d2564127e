import { readFile } from "node:fs/promises";
import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import { waitFor } from "../helpers/test-service.js";
import { callTool, connectSdkClient } from "../mcp/sdk-client.js";
import { verifySignature } from "../webhooks/https-receiver.js";
import {
  ARTIFACTS,
  axeViolations,
  CHROMIUM_PATH,
  type DashboardBed,
  HAS_CHROMIUM,
  mailedLink,
  seriousViolations,
  signedInContext,
  startDashboardBed,
} from "./dashboard-kit.js";

// The dashboard driven in a real browser (issue 19 "Proof"): every flow through the pages a person
// uses, against the real service, its REST API, MCP and a local SMTP server, webhook receiver and
// fake embedding provider. Steps run in order on one signed-in browser context.

const flow = HAS_CHROMIUM ? test.serial : test.skip;
if (!HAS_CHROMIUM) {
  test.skip(`browser flows skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`, () => {});
}

let bed: DashboardBed;
let context: BrowserContext;
let page: Page;
const email = `owner-${process.pid}@example.test`;
const slug = `dash-${process.pid}`;
let tokenForMcp = "";
const axeReport: Record<string, string[]> = {};
/** Moderate and minor findings, reported in the log (not failures). */
const minorAxe = new Set<string>();
/** Evaluated in the page: the document is no wider than the window (no sideways scrolling). */
const FITS_WIDTH = "document.documentElement.scrollWidth <= window.innerWidth";

/** A screenshot under test/artifacts/ and the axe-core check of the page as it is now. */
async function capture(name: string, target: Page = page): Promise<void> {
  await target.screenshot({ path: `${ARTIFACTS}dashboard-${name}.png`, fullPage: true });
  const violations = await axeViolations(target);
  axeReport[name] = seriousViolations(violations);
  for (const v of violations)
    if (v.impact !== "serious" && v.impact !== "critical") minorAxe.add(`${v.impact} ${v.id}`);
}

test.before(async () => {
  if (!HAS_CHROMIUM) return;
  bed = await startDashboardBed();
  context = await bed.browser.newContext({
    locale: "en-GB",
    viewport: { width: 1100, height: 800 },
    acceptDownloads: true,
  });
  page = await context.newPage();
});

test.after.always(async () => {
  await context?.close();
  await bed?.stop();
});

flow(
  "sign-in: the magic link arrives by mail, 'check your mail' shows, the link opens onboarding",
  async (t) => {
    const response = await page.goto(`${bed.url}/dashboard`);
    const headers = response?.headers() ?? {};
    t.regex(headers["content-security-policy"] ?? "", /script-src 'self'/);
    t.regex(headers["content-security-policy"] ?? "", /frame-ancestors 'none'/);
    t.is(headers["x-frame-options"], "DENY");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await capture("sign-in");
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Send sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your mail" }).waitFor();
    t.true((await page.getByRole("status").first().textContent())?.includes(email));
    await capture("check-mail");
    const link = await mailedLink(bed, email);
    await page.goto(link);
    await page.waitForURL(`${bed.url}/dashboard/onboarding`);
    await page.getByRole("heading", { name: "Create your workspace" }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "service.session-token");
    t.truthy(session, "session cookie set");
    t.true(session?.httpOnly);
    t.is(session?.sameSite, "Lax");
    // Nothing secret in browser storage.
    const stored = await page.evaluate<string>("JSON.stringify({ ...localStorage, ...sessionStorage })");
    t.false(stored.includes(session?.value ?? "-"));
  },
);

flow(
  "onboarding: the slug is checked while typing; the workspace is created and the overview shows",
  async (t) => {
    const slugField = page.getByLabel("Workspace address (slug)");
    await slugField.fill("-Bad Slug");
    await page.getByText("Not valid yet").waitFor();
    t.is(await slugField.getAttribute("aria-invalid"), "true");
    t.true(await page.getByRole("button", { name: "Create workspace" }).isDisabled());
    await capture("onboarding-invalid");
    await slugField.fill(slug);
    await page.getByText("This address is valid.").waitFor();
    await page.getByLabel("Workspace name").fill("Dashboard GmbH");
    await page.getByLabel("free").check();
    await capture("onboarding");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page.waitForURL(`${bed.url}/dashboard`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByText("Memories", { exact: true }).waitFor();
    // SELF_HOSTED_PLAN=api: the workspace has the api plan, and no memory limit.
    t.is(await page.locator(".plan").textContent(), "api");
    await page.getByText("your plan has no memory limit").waitFor();
    await capture("overview");
  },
);

flow(
  "tokens: created with scopes, shown once, used against the REST API, last use listed, revoked after confirmation",
  async (t) => {
    await page.getByRole("link", { name: "API tokens" }).click();
    await page.waitForURL(`${bed.url}/dashboard/tokens`);
    await page.getByLabel("Token name").fill("ci-script");
    await page.getByLabel("admin — keys, webhooks, erasure").check();
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByTestId("new-token").inputValue();
    t.regex(token, /^kmt_[A-Za-z0-9_-]{43}$/);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: bed.url });
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    t.is(await page.evaluate<string>("navigator.clipboard.readText()"), token);
    await capture("tokens-created");

    const stats = await fetch(`${bed.url}/api/v1/stats`, { headers: { authorization: `Bearer ${token}` } });
    t.is(stats.status, 200);

    // A second token for the MCP flow.
    await page.getByLabel("Token name").fill("assistant");
    await page.getByRole("button", { name: "Create token" }).click();
    await waitFor(async () => {
      const value = await page.getByTestId("new-token").inputValue();
      return value !== token ? value : undefined;
    });
    tokenForMcp = await page.getByTestId("new-token").inputValue();

    await page.reload();
    const row = page.locator("tr", { hasText: "ci-script" });
    await waitFor(
      async () => ((await row.getByTestId("last-used").textContent()) !== "never" ? true : undefined),
      {
        what: "last use listed",
      },
    );
    await capture("tokens");
    await row.getByRole("button", { name: /Revoke/ }).click();
    await page.getByText("Revoke “ci-script”?").waitFor();
    await capture("tokens-confirm");
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await page.locator("tr", { hasText: "ci-script" }).waitFor({ state: "detached" });
    const after = await fetch(`${bed.url}/api/v1/stats`, { headers: { authorization: `Bearer ${token}` } });
    t.is(after.status, 401);
  },
);

flow(
  "explorer: a memory stored over MCP is found by the real recall, with channel and score, and opens its relations",
  async (t) => {
    const mcp = await connectSdkClient(bed.url, tokenForMcp, "json");
    const first = await callTool<{ id: string }>(mcp.client, "service_store_memory", {
      title: "Datenschutzbeauftragte",
      content: "Unsere Datenschutzbeauftragte ist Frau Weber aus Köln.",
    });
    const second = await callTool<{ id: string }>(mcp.client, "service_store_memory", {
      title: "Weber Kontakt",
      content: "Frau Weber erreicht man unter der Durchwahl 42.",
      memory_type: "reference",
    });
    await callTool(mcp.client, "service_link", {
      from_id: first.id,
      to_id: second.id,
      rel_type: "REFERENCES",
    });
    const updated = await callTool<{ new_memory_id: string }>(mcp.client, "service_update_fact", {
      target_id: first.id,
      new_title: "Datenschutzbeauftragte",
      new_content: "Unsere Datenschutzbeauftragte ist seit Mai Frau Weber-Schmidt aus Köln.",
    });
    await mcp.close();

    await page.getByRole("link", { name: "Memory explorer" }).click();
    await page.getByLabel("Search query").fill("Datenschutzbeauftragte Weber");
    await page.getByRole("button", { name: "Search" }).click();
    const hit = page.locator(`tr[data-memory-id="${updated.new_memory_id}"]`);
    await hit.waitFor();
    t.regex((await hit.getByTestId("channel").textContent()) ?? "", /^(fulltext|vector|hybrid|graph)$/);
    t.true(Number(await hit.getByTestId("score").textContent()) > 0);
    await hit.getByRole("button", { name: "Datenschutzbeauftragte" }).click();
    const detail = page.getByTestId("memory-detail");
    await detail.getByRole("heading", { name: "Versions" }).waitFor();
    // Both versions on the time axis, oldest first, with valid and recorded time.
    const versions = detail.locator("li[data-version-id]");
    await versions.nth(1).waitFor();
    t.is(await versions.count(), 2);
    t.is(await versions.nth(0).getAttribute("data-version-id"), first.id);
    t.regex((await versions.nth(0).textContent()) ?? "", /valid to \d/);
    t.regex((await versions.nth(1).textContent()) ?? "", /still valid; recorded .* SUPERSEDES/);
    await detail.locator("svg.axis rect").nth(1).waitFor();
    await detail.locator("svg.graph").waitFor();
    t.regex((await detail.locator("ul.relations").textContent()) ?? "", /SUPERSEDES/);
    // One node per neighbour (the old version, Weber Kontakt): a link's inverse is not drawn again.
    t.is(await detail.locator("svg.graph circle.node:not(.center)").count(), 2);
    t.is(await detail.locator("ul.relations li").count(), 2);
    // No two labels of the graph overlap, and none is cut off (their boxes as the browser lays them out).
    const overlaps = await detail.locator("svg.graph").evaluate((svg) => {
      const boxes = [...svg.querySelectorAll("text")].map((el) => ({
        text: el.textContent ?? "",
        box: el.getBoundingClientRect(),
      }));
      const found: string[] = [];
      const frame = svg.getBoundingClientRect();
      for (const { text, box } of boxes)
        if (
          box.left < frame.left ||
          box.right > frame.right ||
          box.top < frame.top ||
          box.bottom > frame.bottom
        )
          found.push(`${text} cut off at the edge`);
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1))
          if (
            a.box.left < b.box.right &&
            b.box.left < a.box.right &&
            a.box.top < b.box.bottom &&
            b.box.top < a.box.bottom
          )
            found.push(`${a.text} / ${b.text}`);
      return found;
    });
    t.deepEqual(overlaps, []);
    await capture("explorer");
  },
);

flow(
  "webhooks: created to a local HTTPS receiver (secret shown once); Test delivers a signed webhook.test, logged as delivered",
  async (t) => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("HTTPS address").fill(`${bed.receiver.url}/hook`);
    await page.getByLabel("Description").fill("receiver of the browser test");
    await page.getByLabel("webhook.test").check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = await page.getByTestId("webhook-secret").inputValue();
    t.regex(secret, /^whsec_/);
    // The form starts over for the next webhook.
    t.is(await page.getByLabel("HTTPS address").inputValue(), "https://");
    t.is(await page.getByLabel("Description").inputValue(), "");
    await page.getByRole("button", { name: "Test" }).click();
    await page.getByText("Test event queued").waitFor();
    const received = await waitFor(() => bed.receiver.received.find((w) => w.event === "webhook.test"), {
      what: "webhook.test at the receiver",
      timeoutMs: 30_000,
    });
    t.true(
      verifySignature(
        received.rawBody,
        received.headers["x-service-signature"] as string | undefined,
        secret,
      ),
    );
    await waitFor(
      async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return (await page.locator('tr[data-delivery-status="delivered"]').count()) > 0 ? true : undefined;
      },
      { what: "delivery logged as delivered", timeoutMs: 30_000, intervalMs: 500 },
    );
    await capture("webhooks");

    // Deactivated as the dispatcher does after 20 consecutive failures (that path is tested in
    // test/webhooks/delivery-rules.test.ts), then reactivated by hand in the dashboard.
    await bed.service.storage.db.sql`
      update webhook_subscriptions set active = false, consecutive_failures = 20, deactivated_at = now()
      where url = ${`${bed.receiver.url}/hook`}`;
    await page.reload();
    await page.getByText("deactivated after repeated failures").waitFor();
    await capture("webhooks-deactivated");
    await page.getByRole("button", { name: "Reactivate" }).click();
    await page.locator(".badge.ok", { hasText: "active" }).waitFor();
    t.is(await page.getByRole("button", { name: "Reactivate" }).count(), 0);

    // Deleting asks first.
    await page.getByRole("button", { name: /^Delete/ }).click();
    await page.getByText("Delete the webhook to").waitFor();
    await page.getByRole("button", { name: "Yes, delete" }).click();
    await page.getByText("No webhooks yet.").waitFor();
    const listed = await fetch(`${bed.url}/api/webhooks`, {
      headers: { authorization: `Bearer ${tokenForMcp}` },
    });
    t.deepEqual(await listed.json(), []);
  },
);

flow(
  "provider keys: a key for a (fake) provider is added, listed masked, and tested with its latency",
  async (t) => {
    await page.getByRole("link", { name: "Provider keys" }).click();
    await page.getByLabel("Provider").selectOption("openai");
    await page.getByLabel("Label").fill("fake openai");
    await page.getByLabel("API key").fill(bed.providers.validKey);
    await page.getByLabel(/Base URL/).fill(`${bed.providers.url}/openai/v1`);
    await page.getByRole("button", { name: "Add key" }).click();
    const row = page.locator("tr", { hasText: "fake openai" });
    await row.waitFor();
    const listed = (await row.textContent()) ?? "";
    t.false(listed.includes(bed.providers.validKey), "the key is never shown again");
    t.true(listed.includes(bed.providers.validKey.slice(-4)));
    await row.getByRole("button", { name: "Test" }).click();
    const result = row.getByTestId("key-test");
    await result.waitFor();
    t.regex((await result.textContent()) ?? "", /^OK in \d+ ms/);
    await capture("keys");
  },
);

flow("exports: the audit CSV and the tenant bundle download", async (t) => {
  await page.getByRole("link", { name: "Exports" }).click();
  const [audit] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /Download Audit log/ }).click(),
  ]);
  t.is(audit.suggestedFilename(), "audit-log.csv");
  const csv = await readFile((await audit.path()) ?? "", "utf8");
  t.regex(csv.split("\n")[0] ?? "", /,/);
  t.true(csv.includes("tenant.onboarded"));
  const [bundle] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: /Download Workspace export/ }).click(),
  ]);
  t.is(bundle.suggestedFilename(), "tenant-export.json");
  const json = await readFile((await bundle.path()) ?? "", "utf8");
  t.true(json.includes("Datenschutzbeauftragte"));
  await capture("exports");
});

flow(
  "billing without payments: the plan, every plan's limits, no prices or checkout; the cancellation page is public",
  async (t) => {
    await page.getByRole("link", { name: "Plan and billing" }).click();
    await page.getByTestId("plan").waitFor();
    t.is(await page.getByTestId("plan").textContent(), "API");
    await page
      .getByText("Payments are not set up on this server; the plan is set by its operator.")
      .waitFor();
    t.is(await page.locator("article.plan-card").count(), 5);
    t.regex((await page.locator('[data-plan="team"]').textContent()) ?? "", /120 API requests per minute/);
    t.is(await page.locator(".plan-card .price").count(), 0, "no prices without payments");
    t.is(await page.getByRole("button", { name: /Upgrade|portal/ }).count(), 0);
    await capture("billing");
    await page.goto(`${bed.url}/dashboard/kuendigung`);
    await page.getByRole("heading", { name: "Cancel a subscription" }).waitFor();
    await capture("cancellation");
  },
);

flow(
  "German and English: the browser language decides, the switch changes it; phone width stays usable",
  async (t) => {
    const german = await bed.browser.newContext({ locale: "de-DE", viewport: { width: 375, height: 740 } });
    const phone = await german.newPage();
    await phone.goto(`${bed.url}/dashboard`);
    await phone.getByRole("heading", { name: "Anmelden" }).waitFor();
    await capture("sign-in-de-phone", phone);
    await phone.getByRole("button", { name: "English" }).click();
    await phone.getByRole("heading", { name: "Sign in" }).waitFor();
    t.is(await phone.evaluate<string>("document.documentElement.lang"), "en");
    // No horizontal scrolling at 375 px.
    t.true(await phone.evaluate<boolean>(FITS_WIDTH));
    await german.close();

    // The signed-in pages at phone width, in German.
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole("button", { name: "Deutsch" }).click();
    await page.getByRole("link", { name: "API-Tokens" }).click();
    await page.getByRole("heading", { name: "API-Tokens" }).waitFor();
    await capture("tokens-de-phone");
    t.true(await page.evaluate<boolean>(FITS_WIDTH), "no horizontal scrolling at 375 px");
    await page.getByRole("link", { name: "Übersicht" }).click();
    await page.getByRole("heading", { name: "Übersicht" }).waitFor();
    await capture("overview-de-phone");
  },
);

flow("overview: the quota bar warns from 80 % of the plan's memory limit", async (t) => {
  // A second workspace on a plan with a limit of 5, 4 memories stored: 80 %.
  const limited = await bed.service.createTenant({
    plan: "free",
    limitsOverride: { memoryLimit: 5, requestsPerMinutePerToken: 100_000 },
  });
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${bed.url}/api/v1/memory/entries`, {
      method: "POST",
      headers: { authorization: `Bearer ${limited.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        memory_type: "semantic",
        title: `Note ${i}`,
        content: `Quota note number ${i}.`,
      }),
    });
    t.is(res.status, 201, await res.text());
  }
  const other = await signedInContext(bed, limited.tenantId, { width: 1100, height: 800 });
  const quotaPage = await other.newPage();
  await quotaPage.goto(`${bed.url}/dashboard`);
  await quotaPage.getByText("4 of 5 memories used (80 %).").waitFor();
  const bar = quotaPage.getByRole("progressbar", { name: "Memory quota" });
  t.is(await bar.getAttribute("aria-valuenow"), "4");
  t.regex((await quotaPage.getByRole("status").filter({ hasText: "80 %" }).textContent()) ?? "", /Upgrade/);
  await capture("overview-quota-warning", quotaPage);
  await other.close();
});

flow("keyboard: the skip link and the navigation are reachable with Tab", async (t) => {
  await page.setViewportSize({ width: 1100, height: 800 });
  await page.goto(`${bed.url}/dashboard/tokens`);
  await page.keyboard.press("Tab");
  t.is(await page.evaluate<string>("document.activeElement.className"), "skip");
  await page.keyboard.press("Enter");
  t.is(await page.evaluate<string>("location.hash"), "#main");
});

flow("sign-out ends the session: back to the sign-in page, the old cookie no longer works", async (t) => {
  const before = (await context.cookies()).find((c) => c.name === "service.session-token");
  // The page is still in German, chosen in the language step.
  await page.getByRole("button", { name: "Abmelden" }).click();
  await page.getByRole("heading", { name: "Anmelden" }).waitFor();
  const stale = await fetch(`${bed.url}/api/auth/session`, {
    headers: { cookie: `service.session-token=${before?.value ?? ""}` },
  });
  t.is(stale.status, 401);
});

flow("accessibility: axe-core finds no serious or critical violation on any page", (t) => {
  t.true(Object.keys(axeReport).length >= 16, `pages checked: ${Object.keys(axeReport).join(", ")}`);
  const found = Object.entries(axeReport).flatMap(([name, lines]) => lines.map((l) => `${name}: ${l}`));
  t.log(`${Object.keys(axeReport).length} pages; moderate/minor: ${[...minorAxe].join(", ") || "none"}`);
  t.deepEqual(found, []);
});
