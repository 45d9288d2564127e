import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import { type TestTenant, waitFor } from "../helpers/test-service.js";
import { verifySignature } from "../webhooks/https-receiver.js";
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

// Editing in the dashboard (issue 49 item 6), each flow end to end in Chromium against the real
// service: the explorer updates a fact, links, unlinks and erases; webhooks are edited, reactivated
// and get a new secret; provider keys are chosen for embeddings and reranking; tokens get scopes.
// What the page did is checked again through the REST API, not only on the page.

const flow = HAS_CHROMIUM ? test.serial : test.skip;
if (!HAS_CHROMIUM) {
  test.skip(`editing browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`, () => {});
}

let bed: DashboardBed;
let context: BrowserContext;
let page: Page;
let tenant: TestTenant;
const axeReport: Record<string, string[]> = {};

/** A screenshot under test/artifacts/ and the axe-core check of the page as it is now. */
async function capture(name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}dashboard-edit-${name}.png`, fullPage: true });
  axeReport[name] = seriousViolations(await axeViolations(page));
}

/** A REST call with the workspace's admin token (what a script would see). */
const rest = <T>(method: string, path: string, body?: unknown) =>
  restAs<T>(bed.url, tenant.token, method, path, body);

async function store(title: string, content: string, memoryType: string): Promise<string> {
  const res = await rest<{ memoryId: string }>("POST", "/api/v1/memory/entries", {
    memory_type: memoryType,
    title,
    content,
  });
  if (res.status !== 201) throw new Error(`store answered ${res.status}`);
  return res.body.memoryId;
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

/** The office fact: several paragraphs, longer than any snippet. */
const OFFICE = [
  "Our office is at Rheinufer 12 in Bonn, third floor, next to the tram stop.",
  "Visitors sign in at the front desk; parking is in the garage under the building.",
  "Deliveries go to the loading bay on the side street before 10 o'clock.",
  "The meeting rooms are named after rivers: Rhein, Mosel, Ahr and Sieg.",
].join("\n\n");

let officeId = "";
let acmeId = "";
let handbookId = "";
let newOfficeId = "";

flow(
  "explorer: update a fact — the edit box holds the full current text; a new version with its reason joins the history",
  async (t) => {
    officeId = await store("Office", OFFICE, "semantic");
    acmeId = await store("Acme GmbH", "Acme GmbH is our largest client, based in Köln.", "entity");
    handbookId = await store("Handbook", "The staff handbook explains holidays and expenses.", "reference");

    await page.goto(`${bed.url}/dashboard/explorer`);
    await page.getByRole("heading", { name: "Memory explorer" }).waitFor();
    await page.locator("ul.recent").getByRole("button", { name: "Office" }).click();
    const detail = page.getByTestId("memory-detail");
    const editor = detail.getByTestId("fact-editor");
    await editor.getByRole("heading", { name: "Update this fact" }).waitFor();
    // The whole text, not a snippet of it.
    t.is(await editor.getByLabel("Content").inputValue(), OFFICE);
    t.is(await editor.getByLabel("Title").inputValue(), "Office");
    const save = editor.getByRole("button", { name: "Save new version" });
    t.true(await save.isDisabled(), "nothing changed yet");
    await capture("explorer-detail");

    const moved = OFFICE.replace("Rheinufer 12 in Bonn", "Domplatz 3 in Köln");
    await editor.getByLabel("Content").fill(moved);
    t.true(await save.isDisabled(), "a reason is required");
    await editor.getByLabel("Reason for the change").fill("moved to Köln");
    await save.click();
    await detail.getByText("New version saved.").waitFor();
    const versions = detail.locator("li[data-version-id]");
    await versions.nth(1).waitFor();
    t.is(await versions.count(), 2);
    t.is(await versions.nth(0).getAttribute("data-version-id"), officeId);
    newOfficeId = (await versions.nth(1).getAttribute("data-version-id")) ?? "";
    t.regex((await versions.nth(1).textContent()) ?? "", /this version.*still valid.*reason: moved to Köln/s);
    // The edit box now starts from the new version's full text.
    t.is(await editor.getByLabel("Content").inputValue(), moved);
    t.is(await editor.getByLabel("Reason for the change").inputValue(), "");

    const history = await rest<{ versions: { id: string; updateReason: string | null; content?: string }[] }>(
      "GET",
      `/api/v1/memory/${officeId}/versions?content=true`,
    );
    t.deepEqual(
      history.body.versions.map((v) => [v.id, v.updateReason, v.content]),
      [
        [officeId, null, OFFICE],
        [newOfficeId, "moved to Köln", moved],
      ],
    );
    await capture("explorer-updated");
  },
);

flow(
  "explorer: link with the relation types whose shape rules fit both memories, then unlink after confirmation",
  async (t) => {
    const detail = page.getByTestId("memory-detail");
    const editor = detail.getByTestId("link-editor");
    const types = editor.getByLabel("Relation type");
    const options = async () => types.locator("option").allTextContents();

    // To a reference memory: types that need an entity at the target (ABOUT, MENTIONS) are not offered.
    await editor.getByLabel("Related memory").selectOption(handbookId);
    await types.waitFor();
    const toHandbook = await options();
    t.true(toHandbook.includes("REFERENCES"));
    t.false(toHandbook.includes("ABOUT"));
    t.false(toHandbook.includes("SUPERSEDES"), "history is written only by fact updates");
    t.regex(
      (await editor.getByTestId("shape-note").textContent()) ?? "",
      /^\d+ other relation types do not fit/,
    );

    // To an entity: ABOUT fits; OWNS does not (its source must be an entity, the office fact is not).
    await editor.getByLabel("Related memory").selectOption(acmeId);
    await waitFor(async () => ((await options()).includes("ABOUT") ? true : undefined), {
      what: "ABOUT offered for an entity target",
    });
    t.false((await options()).includes("OWNS"));
    await types.selectOption("ABOUT");
    t.is(
      await editor.getByTestId("relation-rule").textContent(),
      "The source is primarily about the target entity.",
    );
    await capture("explorer-link");
    await editor.getByRole("button", { name: "Link" }).click();
    await detail.getByText("Linked: ABOUT “Acme GmbH”.").waitFor();
    // The form starts over.
    t.is(await editor.getByLabel("Related memory").inputValue(), "");
    const acme = detail.locator(`ul.relations li[data-neighbour="${acmeId}"]`);
    await acme.waitFor();
    t.regex((await acme.textContent()) ?? "", /→ ABOUT Acme GmbH/);
    const linked = await rest<{ outgoing: { relType: string; to: string }[] }>(
      "GET",
      `/api/v1/memory/${newOfficeId}/relations`,
    );
    t.true(linked.body.outgoing.some((r) => r.relType === "ABOUT" && r.to === acmeId));
    // One node per neighbour: the old version and Acme (ABOUT's inverse SUBJECT_OF is not drawn again).
    t.is(await detail.locator("svg.graph circle.node:not(.center)").count(), 2);
    // The superseded version's SUPERSEDES edge is history: no remove button for it.
    t.is(await detail.locator(`ul.relations li[data-neighbour="${officeId}"] button.danger`).count(), 0);

    await acme.getByRole("button", { name: /^Remove/ }).click();
    await detail.getByText("Remove the relation ABOUT to “Acme GmbH”?").waitFor();
    await capture("explorer-unlink-confirm");
    await detail.getByRole("button", { name: "Yes, remove" }).click();
    await acme.waitFor({ state: "detached" });
    await detail.getByText("Relation to “Acme GmbH” removed.").waitFor();
    const after = await rest<{ outgoing: { relType: string }[]; incoming: { relType: string }[] }>(
      "GET",
      `/api/v1/memory/${newOfficeId}/relations`,
    );
    t.false([...after.body.outgoing, ...after.body.incoming].some((r) => /ABOUT|SUBJECT_OF/.test(r.relType)));
  },
);

flow("explorer: erase asks first with what would go (a dry run), then removes every version", async (t) => {
  const detail = page.getByTestId("memory-detail");
  const erase = detail.getByTestId("erase-memory");
  await erase.getByRole("button", { name: "Erase this memory" }).click();
  const plan = erase.getByTestId("erase-plan");
  await plan.waitFor();
  t.regex((await plan.textContent()) ?? "", /^Erase “Office” for good\? 2 version\(s\), \d+ text chunk\(s\)/);
  // The dry run erased nothing.
  t.is((await rest("GET", `/api/v1/memory/${officeId}/versions`)).status, 200);
  await capture("explorer-erase-confirm");
  // Cancel keeps it; asking again and confirming erases.
  await erase.getByRole("button", { name: "Cancel" }).click();
  await erase.getByRole("button", { name: "Erase this memory" }).click();
  await erase.getByRole("button", { name: "Yes, erase for good" }).click();
  await page.getByText("“Office” was erased.").waitFor();
  t.is(await page.getByTestId("memory-detail").count(), 0);
  t.is((await rest("GET", `/api/v1/memory/${officeId}/versions`)).status, 404);
  t.is((await rest("GET", `/api/v1/memory/${newOfficeId}/versions`)).status, 404);
  await page.locator("ul.recent").getByRole("button", { name: "Acme GmbH" }).waitFor();
  t.is(await page.locator("ul.recent").getByRole("button", { name: "Office" }).count(), 0);
  await capture("explorer-erased");
});

flow(
  "explorer in German at phone width: the editing texts are translated, nothing scrolls sideways",
  async (t) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole("button", { name: "Deutsch" }).click();
    await page.locator("ul.recent").getByRole("button", { name: "Acme GmbH" }).click();
    const detail = page.getByTestId("memory-detail");
    await detail.getByRole("heading", { name: "Diesen Fakt aktualisieren" }).waitFor();
    await detail.getByRole("heading", { name: "Beziehung hinzufügen" }).waitFor();
    await detail.getByRole("button", { name: "Diese Erinnerung löschen" }).waitFor();
    t.is(await detail.getByLabel("Grund der Änderung").count(), 1);
    t.true(await page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth"));
    await capture("explorer-de-phone");
    await page.getByRole("button", { name: "English" }).click();
    await page.setViewportSize({ width: 1100, height: 900 });
  },
);

flow(
  "webhooks: edit the address and events, reactivate a deactivated one, rotate the secret (shown once; deliveries signed with it)",
  async (t) => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByLabel("HTTPS address").fill(`${bed.receiver.url}/first`);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const first = await page.getByTestId("webhook-secret").inputValue();
    t.regex(first, /^whsec_/);
    const card = page.locator("article[data-webhook-id]");
    await card.waitFor();
    const id = (await card.getAttribute("data-webhook-id")) ?? "";

    // Edit: the form starts with the current values.
    await card.getByRole("button", { name: /^Edit/ }).click();
    const form = card.getByRole("form", { name: "Edit webhook" });
    t.is(await form.getByLabel("HTTPS address").inputValue(), `${bed.receiver.url}/first`);
    t.true(await form.getByLabel("memory.created").isChecked());
    await form.getByLabel("HTTPS address").fill(`${bed.receiver.url}/second`);
    await form.getByLabel("Description").fill("CRM sync");
    await form.getByLabel("memory.updated").check();
    await form.getByLabel("webhook.test").check();
    await capture("webhook-edit");
    await form.getByRole("button", { name: "Save changes" }).click();
    await card.getByText("Changes saved.").waitFor();
    await card.getByRole("heading", { name: `${bed.receiver.url}/second` }).waitFor();
    const stored = await rest<{ url: string; events: string[]; description: string }>(
      "GET",
      `/api/webhooks/${id}`,
    );
    t.like(stored.body, { url: `${bed.receiver.url}/second`, description: "CRM sync" });
    t.deepEqual([...stored.body.events].sort(), ["memory.created", "memory.updated", "webhook.test"]);

    // Deactivated as the dispatcher does after 20 failures in a row; reactivated by hand.
    await bed.service.storage.db.sql`
      update webhook_subscriptions set active = false, consecutive_failures = 20, deactivated_at = now()
      where id = ${id}`;
    await page.reload();
    await card.getByText("deactivated after repeated failures").waitFor();
    await card.getByRole("button", { name: "Reactivate" }).click();
    await card.locator(".badge.ok").waitFor();
    t.true((await rest<{ active: boolean }>("GET", `/api/webhooks/${id}`)).body.active);

    // Rotate: asked first, the new secret shown once, deliveries carry its signature.
    await card.getByRole("button", { name: /^New secret/ }).click();
    await card.getByText("Issue a new signing secret?").waitFor();
    await card.getByRole("button", { name: "Yes, issue a new secret" }).click();
    const rotated = await card.getByTestId("rotated-secret").inputValue();
    t.regex(rotated, /^whsec_/);
    t.not(rotated, first);
    await card.getByText(/Until .* events are also signed with the old one/).waitFor();
    await capture("webhook-rotated");
    await card.getByRole("button", { name: "Test" }).click();
    await card.getByText("Test event queued").waitFor();
    const received = await waitFor(
      () => bed.receiver.received.find((w) => w.event === "webhook.test" && w.path.endsWith("/second")),
      {
        what: `webhook.test at the new address (received: ${JSON.stringify(bed.receiver.received.map((w) => [w.event, w.path]))})`,
        timeoutMs: 30_000,
      },
    );
    const signature = received.headers["x-service-signature"] as string | undefined;
    t.true(verifySignature(received.rawBody, signature, rotated), "signed with the new secret");
    // A reload: the secret is gone from the page (shown once).
    await page.reload();
    await card.waitFor();
    t.is(await page.getByTestId("rotated-secret").count(), 0);
  },
);

flow(
  "provider keys: choose which key embeds and which reranks; the re-embed progress shows until search switches",
  async (t) => {
    await page.getByRole("link", { name: "Provider keys" }).click();
    const add = async (provider: string, label: string, baseUrl: string) => {
      await page.getByLabel("Provider").selectOption(provider);
      await page.getByLabel("Label").fill(label);
      await page.getByLabel("API key").fill(bed.providers.validKey);
      await page.getByLabel(/Base URL/).fill(baseUrl);
      await page.getByRole("button", { name: "Add key" }).click();
      const row = page.locator("tr", { hasText: label });
      await row.waitFor();
      // A key is measured by its test before it can embed (its dimension).
      await row.getByRole("button", { name: "Test" }).click();
      await row.getByTestId("key-test").waitFor();
      return row;
    };
    const openai = await add("openai", "embedder", `${bed.providers.url}/openai/v1`);
    const cohere = await add("cohere", "reranker", bed.providers.url);
    const card = page.getByTestId("model-selection");
    await card.getByRole("heading", { name: "Which key embeds and which reranks" }).waitFor();
    const before = (await card.getByTestId("active-space").textContent()) ?? "";
    // Only a provider with a rerank API is offered for reranking.
    const rerankOptions = await card.getByLabel("Reranking").locator("option").allTextContents();
    t.deepEqual(
      rerankOptions.map((o) => o.split(" (")[0]),
      ["The service's own model", "reranker"],
    );

    // Memories to re-embed; the provider answers the first embedding calls slowly (503, retry after
    // a second), so the progress is on the page for a while.
    for (let i = 0; i < 3; i++) await store(`Note ${i}`, `A note about topic ${i}.`, "semantic");
    bed.providers.failNext(
      { status: 503, headers: { "retry-after": "1" }, json: { error: { message: "busy" } } },
      { status: 503, headers: { "retry-after": "1" }, json: { error: { message: "busy" } } },
    );
    await card.getByLabel("Embeddings").selectOption((await openai.getAttribute("data-key-id")) ?? "");
    await card.getByLabel("Reranking").selectOption((await cohere.getAttribute("data-key-id")) ?? "");
    await card.getByRole("button", { name: "Save choice" }).click();
    const progress = card.getByRole("progressbar", { name: "Re-embedding progress" });
    await progress.waitFor();
    t.true(Number(await progress.getAttribute("aria-valuemax")) >= 3);
    t.regex(
      (await card.getByTestId("reembed").textContent()) ?? "",
      /Re-embedding: \d+ of \d+ memories into openai:/,
    );
    await capture("keys-reembed");
    // Done: the progress goes away and search uses the new space.
    await progress.waitFor({ state: "detached", timeout: 60_000 });
    const after = (await card.getByTestId("active-space").textContent()) ?? "";
    t.not(after, before);
    t.regex(after, /openai:text-embedding-3-small:1024/);
    t.is(await openai.getByTestId("used-for").textContent(), "embeddings");
    t.is(await cohere.getByTestId("used-for").textContent(), "reranking");
    const selection = await rest<{
      embeddingKeyId: string | null;
      rerankKeyId: string | null;
      reembed: unknown;
    }>("GET", "/api/v1/keys/selection");
    t.is(selection.body.reembed, null);
    t.is(selection.body.embeddingKeyId, await openai.getAttribute("data-key-id"));
    t.is(selection.body.rerankKeyId, await cohere.getAttribute("data-key-id"));
    await capture("keys-selection");

    // Back to the service's own reranker.
    await card.getByLabel("Reranking").selectOption("");
    await card.getByRole("button", { name: "Save choice" }).click();
    await card.getByText("Choice saved.").waitFor();
    t.is(
      (await rest<{ rerankKeyId: string | null }>("GET", "/api/v1/keys/selection")).body.rerankKeyId,
      null,
    );
  },
);

flow("tokens: scopes are chosen on creation and shown in the list", async (t) => {
  await page.getByRole("link", { name: "API tokens" }).click();
  await page.getByRole("heading", { name: "API tokens" }).waitFor();
  // read and write are preselected; admin is a deliberate choice.
  t.true(await page.getByLabel(/read — /).isChecked());
  t.true(await page.getByLabel(/write — /).isChecked());
  t.false(await page.getByLabel(/admin — /).isChecked());
  await page.getByLabel("Token name").fill("reader");
  await page.getByLabel(/write — /).uncheck();
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByTestId("new-token").inputValue();
  const row = page.locator("tr", { hasText: "reader" });
  await row.waitFor();
  t.is(await row.getByTestId("scopes").textContent(), "read");
  // No scope at all cannot be created.
  await page.getByLabel("Token name").fill("nothing");
  await page.getByLabel(/read — /).uncheck();
  t.true(await page.getByRole("button", { name: "Create token" }).isDisabled());
  await capture("tokens-scopes");
  // The token really has only read: it recalls, it cannot store.
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const read = await fetch(`${bed.url}/api/v1/memory/recent`, { headers });
  t.is(read.status, 200);
  const write = await fetch(`${bed.url}/api/v1/memory/entries`, {
    method: "POST",
    headers,
    body: JSON.stringify({ memory_type: "semantic", title: "x", content: "y" }),
  });
  t.is(write.status, 403);
});

flow("accessibility: axe-core finds no serious or critical violation on the editing views", (t) => {
  const found = Object.entries(axeReport).flatMap(([name, lines]) => lines.map((l) => `${name}: ${l}`));
  t.log(`${Object.keys(axeReport).length} views checked: ${Object.keys(axeReport).join(", ")}`);
  t.deepEqual(found, []);
});
