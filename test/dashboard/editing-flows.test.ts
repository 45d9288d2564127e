import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import { type TestTenant, waitFor } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import {
  ARTIFACTS,
  axeViolations,
  CHROMIUM_PATH,
  type DashboardBed,
  HAS_CHROMIUM,
  seriousViolations,
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
async function rest<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${bed.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

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
  const cookie = await createSessionCookie(bed.service, tenant.tenantId);
  const [name = "", value = ""] = cookie.split("=");
  context = await bed.browser.newContext({ locale: "en-GB", viewport: { width: 1100, height: 900 } });
  await context.addCookies([{ name, value, url: bed.url, httpOnly: true, sameSite: "Lax" }]);
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

flow("explorer in German: the editing texts are translated", async (t) => {
  await page.getByRole("button", { name: "Deutsch" }).click();
  await page.locator("ul.recent").getByRole("button", { name: "Acme GmbH" }).click();
  const detail = page.getByTestId("memory-detail");
  await detail.getByRole("heading", { name: "Diesen Fakt aktualisieren" }).waitFor();
  await detail.getByRole("heading", { name: "Beziehung hinzufügen" }).waitFor();
  await detail.getByRole("button", { name: "Diese Erinnerung löschen" }).waitFor();
  t.is(await detail.getByLabel("Grund der Änderung").count(), 1);
  await capture("explorer-de");
  await page.getByRole("button", { name: "English" }).click();
});

flow("accessibility: axe-core finds no serious or critical violation on the editing views", (t) => {
  const found = Object.entries(axeReport).flatMap(([name, lines]) => lines.map((l) => `${name}: ${l}`));
  t.log(`${Object.keys(axeReport).length} views checked`);
  t.deepEqual(found, []);
});
