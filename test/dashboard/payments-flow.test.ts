import test from "ava";
import type { BrowserContext, Page } from "playwright-core";
import { paymentEnv, SECRET_KEY } from "../billing/payment-fixtures.js";
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

flow("billing: back from the checkout, the plan, an upgrade checkout and the portal answer", async (t) => {
  await page.goto(`${bed.url}/dashboard/billing?checkout=success`);
  await page.getByText("Thank you! Your payment is being confirmed").waitFor();
  // Until Stripe's webhook confirms the payment, the workspace stays free.
  t.is(await page.getByTestId("plan").textContent(), "free");
  await page.screenshot({ path: `${ARTIFACTS}dashboard-billing-payments.png`, fullPage: true });
  t.deepEqual(seriousViolations(await axeViolations(page)), []);
  await page.getByLabel("Plan").selectOption("plus");
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await page.waitForURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\//);
  const last = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1);
  t.is(last?.form["line_items[0][price]"], "price_plus_monthly");
  // The portal needs a payment customer, which only a completed checkout creates: a plain 404.
  await page.goto(`${bed.url}/dashboard/billing`);
  await page.getByRole("button", { name: "Open customer portal" }).click();
  await page.getByRole("alert").waitFor();
  t.regex((await page.getByRole("alert").textContent()) ?? "", /customer|payment/i);
});

flow("the public cancellation page takes a cancellation in two steps, without signing in", async (t) => {
  const anonymous = await bed.browser.newContext({ locale: "de-DE", viewport: { width: 375, height: 740 } });
  const cancel = await anonymous.newPage();
  await cancel.goto(`${bed.url}/dashboard/kuendigung`);
  await cancel.getByRole("heading", { name: "Abonnement kündigen" }).waitFor();
  await cancel.getByLabel("E-Mail-Adresse").fill(email);
  await cancel.getByLabel("Arbeitsbereich (Slug)").fill(`pay-${process.pid}`);
  await cancel.getByRole("button", { name: "Weiter" }).click();
  await cancel.getByRole("button", { name: "Jetzt kündigen" }).click();
  const received = cancel.getByRole("status").filter({ hasText: "Eingegangen am" });
  await received.waitFor();
  await cancel.screenshot({
    path: `${ARTIFACTS}dashboard-cancellation-received-de-phone.png`,
    fullPage: true,
  });
  t.deepEqual(seriousViolations(await axeViolations(cancel)), []);
  await anonymous.close();
});
