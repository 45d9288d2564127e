import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import {
  completedSession,
  deliver,
  paymentEnv,
  SECRET_KEY,
  stripeEvent,
} from "../billing/payment-fixtures.js";
import { type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.js";
import {
  ARTIFACTS,
  axeViolations,
  CHROMIUM_PATH,
  type DashboardBed,
  HAS_CHROMIUM,
  mailedLink,
  seriousViolations,
  startDashboardBed,
} from "./dashboard-kit.js";

// Onboarding and billing with payments configured (issue 19: "plan choice → checkout"): the real
// service talks to the local fake Stripe API; the browser's visits to Stripe's hosted pages are
// answered by the test itself (Playwright routing), so nothing leaves the machine.

const flow = HAS_CHROMIUM ? test.serial : test.skip;
if (!HAS_CHROMIUM) {
  test.skip(`payment flows skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`, () => {});
}

let stripe: FakeStripe;
let bed: DashboardBed;
let context: BrowserContext;
let page: Page;
const email = `payer-${process.pid}@example.test`;

test.before(async () => {
  if (!HAS_CHROMIUM) return;
  stripe = await startFakeStripe(SECRET_KEY);
  bed = await startDashboardBed({ env: paymentEnv(stripe.url), selfHostedPlan: false });
  context = await bed.browser.newContext({ locale: "en-GB", viewport: { width: 1100, height: 800 } });
  await context.route(/^https:\/\/(checkout|billing)\.stripe\.com\//, (route) =>
    route.fulfill({
      status: 200,
      contentType: "text/html",
      body: "<!doctype html><title>Stripe (test)</title><h1>Stripe</h1>",
    }),
  );
  page = await context.newPage();
});

test.after.always(async () => {
  await context?.close();
  await bed?.stop();
  await stripe?.close();
});

flow("onboarding with a paid plan continues to the payment checkout", async (t) => {
  await page.goto(`${bed.url}/dashboard`);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await page.getByRole("heading", { name: "Check your mail" }).waitFor();
  await page.goto(await mailedLink(bed, email));
  await page.getByLabel("Workspace address (slug)").fill(`pay-${process.pid}`);
  await page.getByLabel("Workspace name").fill("Zahlende GmbH");
  await page.getByLabel("pro").check();
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.waitForURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\//);
  const session = stripe.requests.find((r) => r.path === "/v1/checkout/sessions");
  t.is(session?.form["line_items[0][price]"], "price_pro_monthly");
  t.regex(session?.form.success_url ?? "", /\/dashboard\/billing\?checkout=success/);
});

flow(
  "billing on free: plan cards with prices and limits, upgrade paths to every paid plan, no portal",
  async (t) => {
    await page.goto(`${bed.url}/dashboard/billing?checkout=success`);
    await page.getByText("Thank you! Your payment is being confirmed").waitFor();
    // Until Stripe's webhook confirms the payment, the workspace stays free.
    t.is(await page.getByTestId("plan").textContent(), "Free");
    t.is(await page.getByTestId("price-plus").textContent(), "€5.00 per month");
    t.is(await page.getByTestId("price-pro").textContent(), "€19.00 per month");
    t.is(await page.getByTestId("price-api").textContent(), "€99.00 per month");
    const free = page.locator('[data-plan="free"]');
    t.regex((await free.textContent()) ?? "", /Up to 2,500 memories.*Your plan/);
    t.regex((await page.locator('[data-plan="team"]').textContent()) ?? "", /Webhooks/);
    t.regex((await page.locator('[data-plan="api"]').textContent()) ?? "", /API tokens and MCP access/);
    for (const plan of ["Plus", "Pro", "Team", "API"]) {
      t.is(await page.getByRole("button", { name: `Upgrade to ${plan}` }).count(), 1, plan);
    }
    t.is(
      await page.getByRole("button", { name: "Open customer portal" }).count(),
      0,
      "no payment customer yet",
    );
    t.is(await page.getByRole("link", { name: "Cancel your subscription" }).count(), 0);
    await page.screenshot({ path: `${ARTIFACTS}dashboard-billing-free.png`, fullPage: true });
    t.deepEqual(seriousViolations(await axeViolations(page)), []);
    // Billed yearly: the yearly prices, and the plans sold only monthly say so.
    await page.getByLabel("yearly").check();
    t.is(await page.getByTestId("price-pro").textContent(), "€190.00 per year");
    await page.locator('[data-plan="plus"]').getByText("Not available billed yearly.").waitFor();
    await page.getByRole("button", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\//);
    const last = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1);
    t.is(last?.form["line_items[0][price]"], "price_pro_yearly");
  },
);

flow(
  "billing on pro: period end, portal for plan changes, Free through the cancellation page; errors in words",
  async (t) => {
    const [tenant] = await bed.service.storage.db.sql<{ id: string }[]>`
    select id from tenants where slug = ${`pay-${process.pid}`}`;
    const tenantId = tenant?.id ?? "";
    const periodEnd = Math.floor(Date.now() / 1000) + 20 * 86_400;
    stripe.subscriptions.set("sub_flow", {
      id: "sub_flow",
      customer: "cus_flow",
      status: "active",
      priceId: "price_pro_monthly",
      currentPeriodEnd: periodEnd,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      metadata: { tenant_id: tenantId },
    });
    const paid = await deliver(
      bed.url,
      stripeEvent(
        "checkout.session.completed",
        completedSession({ tenantId, plan: "pro", customer: "cus_flow", subscription: "sub_flow" }),
      ),
    );
    t.is(paid.status, 200);
    await page.goto(`${bed.url}/dashboard/billing`);
    await page.getByTestId("period").waitFor();
    t.is(await page.getByTestId("plan").textContent(), "Pro");
    const renews = new Date(periodEnd * 1000).toLocaleDateString("en-GB", { dateStyle: "long" });
    t.is(await page.getByTestId("period").textContent(), `Billed monthly. Renews on ${renews}.`);
    t.is(await page.locator('[data-plan="pro"]').getByText("Your plan").count(), 1);
    // With a subscription, plan changes go through the portal; back to Free through the cancellation.
    t.is(await page.getByRole("button", { name: "Upgrade to Team in the customer portal" }).count(), 1);
    t.is(await page.getByRole("button", { name: "Switch to Plus in the customer portal" }).count(), 1);
    t.is(
      await page.getByRole("button", { name: /^Upgrade to \w+$/ }).count(),
      0,
      "no second checkout offered",
    );
    t.is(
      await page
        .locator('[data-plan="free"]')
        .getByRole("link", { name: "Cancel to return to Free" })
        .getAttribute("href"),
      "/dashboard/kuendigung",
    );
    await page.screenshot({ path: `${ARTIFACTS}dashboard-billing-pro.png`, fullPage: true });
    t.deepEqual(seriousViolations(await axeViolations(page)), []);
    // The payment provider down: a sentence to act on, not the API's text.
    stripe.failing = true;
    try {
      await page.getByRole("button", { name: "Open customer portal" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      const text = (await alert.textContent()) ?? "";
      t.is(text, "The payment provider cannot be reached right now. Please try again in a few minutes.");
    } finally {
      stripe.failing = false;
    }
    await page.getByRole("button", { name: "Open customer portal" }).click();
    await page.waitForURL(/^https:\/\/billing\.stripe\.com\//);
  },
);

flow(
  "the public cancellation page (§ 312k BGB): kind, wished date, identifying fields, a check step, a receipt with its time",
  async (t) => {
    const anonymous = await bed.browser.newContext({
      locale: "de-DE",
      viewport: { width: 375, height: 740 },
    });
    const cancel = await anonymous.newPage();
    await cancel.goto(`${bed.url}/dashboard/kuendigung`);
    await cancel.getByRole("heading", { name: "Abonnement kündigen" }).waitFor();
    // Defaults: ordinary, at the earliest possible date.
    t.true(await cancel.getByLabel("Ordentliche Kündigung (zum Ende des bezahlten Zeitraums)").isChecked());
    t.true(await cancel.getByLabel("Zum nächstmöglichen Zeitpunkt").isChecked());
    await cancel.screenshot({ path: `${ARTIFACTS}dashboard-cancellation-form-de-phone.png`, fullPage: true });
    t.deepEqual(seriousViolations(await axeViolations(cancel)), []);

    await cancel.getByLabel("Außerordentliche Kündigung aus wichtigem Grund").check();
    await cancel
      .getByLabel("Grund (bei außerordentlicher Kündigung erforderlich)")
      .fill("Dienst nicht erreichbar");
    await cancel.getByLabel("Zu einem Wunschtermin").check();
    // A wished date after the paid period (20 days): the contract ends on that day.
    const wished = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    await cancel.getByLabel("Gewünschtes Vertragsende").fill(wished);
    await cancel.getByLabel("E-Mail-Adresse").fill(email);
    await cancel.getByLabel("Arbeitsbereich (Slug)").fill(`pay-${process.pid}`);
    await cancel.getByRole("button", { name: "Weiter" }).click();

    await cancel.getByRole("heading", { name: "Bitte prüfen Sie Ihre Kündigung" }).waitFor();
    const wishedDe = new Date(`${wished}T00:00:00Z`).toLocaleDateString("de-DE", {
      dateStyle: "long",
      timeZone: "UTC",
    });
    const check = (await cancel.locator(".summary").textContent()) ?? "";
    t.true(check.includes("Außerordentliche Kündigung"), check);
    t.true(check.includes(`Zum ${wishedDe}`), check);
    t.true(
      check.includes(email) &&
        check.includes(`pay-${process.pid}`) &&
        check.includes("Dienst nicht erreichbar"),
    );
    await cancel.screenshot({
      path: `${ARTIFACTS}dashboard-cancellation-check-de-phone.png`,
      fullPage: true,
    });
    await cancel.getByRole("button", { name: "Jetzt kündigen" }).click();

    await cancel.getByRole("heading", { name: "Ihre Kündigung ist eingegangen" }).waitFor();
    const received = (await cancel.getByTestId("received").textContent()) ?? "";
    t.regex(
      received,
      /^Ihre Kündigung ist am \d{1,2}\. \S+ \d{4} um \d{2}:\d{2}:\d{2} \S+ bei uns eingegangen\.$/,
    );
    const shown = (await cancel.locator("main").textContent()) ?? "";
    // One time of receipt, one language, no developer text.
    t.is(shown.match(/\d{2}:\d{2}:\d{2}/g)?.length, 1, shown);
    t.notRegex(shown, /POST|\/api\/|confirmationToken|Your cancellation|received on/);
    await cancel.getByRole("button", { name: "Seite drucken oder speichern" }).waitFor();
    await cancel.screenshot({
      path: `${ARTIFACTS}dashboard-cancellation-received-de-phone.png`,
      fullPage: true,
    });
    t.deepEqual(seriousViolations(await axeViolations(cancel)), []);
    await anonymous.close();

    // At Stripe the subscription now ends on the wished day; the billing page says so.
    t.is(
      stripe.subscriptions.get("sub_flow")?.cancelAt,
      Math.floor(Date.parse(`${wished}T00:00:00Z`) / 1000),
    );
    await page.goto(`${bed.url}/dashboard/billing`);
    const wishedEn = new Date(`${wished}T00:00:00Z`).toLocaleDateString("en-GB", { dateStyle: "long" });
    await page
      .getByText(
        `Your cancellation is registered: Pro ends on ${wishedEn}. After that the workspace continues on the Free plan.`,
      )
      .waitFor();
    await page.locator('[data-plan="free"]').getByText(`Free again from ${wishedEn}`).waitFor();
    t.is(await page.getByRole("link", { name: "Cancel your subscription" }).count(), 0);
    await page.screenshot({
      path: `${ARTIFACTS}dashboard-billing-cancellation-scheduled.png`,
      fullPage: true,
    });
  },
);

flow(
  "the cancellation page in English: one language, the earliest date by default, refusals in words",
  async (t) => {
    const anonymous = await bed.browser.newContext({
      locale: "en-GB",
      viewport: { width: 1100, height: 800 },
    });
    const cancel = await anonymous.newPage();
    await cancel.goto(`${bed.url}/dashboard/kuendigung`);
    await cancel.getByRole("heading", { name: "Cancel a subscription" }).waitFor();
    const form = (await cancel.locator("main").textContent()) ?? "";
    t.notRegex(form, /Kündigung|kündigen|Zeitpunkt|POST|\/api\//);
    // A slug that cannot exist is explained before anything is sent.
    await cancel.getByLabel("Workspace (slug)").fill("-Bad");
    await cancel.getByText("The workspace address has 2 to 63 characters").waitFor();
    t.true(await cancel.getByRole("button", { name: "Continue" }).isDisabled());
    await cancel.getByLabel("Workspace (slug)").fill("nobody-here");
    await cancel.getByLabel("E-mail address").fill("nobody@example.test");
    await cancel.getByRole("button", { name: "Continue" }).click();
    await cancel.getByRole("heading", { name: "Please check your cancellation" }).waitFor();
    t.true(
      ((await cancel.locator(".summary").textContent()) ?? "").includes("At the earliest possible date"),
    );
    await cancel.getByRole("button", { name: "Cancel now" }).click();
    // Unknown contracts get the same receipt (no account enumeration).
    await cancel.getByRole("heading", { name: "Your cancellation has been received" }).waitFor();
    t.regex((await cancel.getByTestId("received").textContent()) ?? "", /^We received your cancellation on /);
    await cancel.screenshot({ path: `${ARTIFACTS}dashboard-cancellation-received-en.png`, fullPage: true });
    await anonymous.close();
  },
);
