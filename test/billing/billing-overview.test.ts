import test from "ava";
import { PLANS } from "../../core/plans/plans.js";
import { testModels } from "../graph/graph-test-kit.js";
import { type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { paymentEnv, SECRET_KEY } from "./payment-fixtures.js";

// GET /api/billing (issue 49 item 3): the billing page's data — plans with the limits of the one
// plan table and the configured Stripe prices (read from the local fake Stripe API, in the
// customer's currency where the price has it), the current plan, the subscription's period end and
// a scheduled cancellation, and whether the portal can be opened.

let service: TestService;
let stripe: FakeStripe;

test.before(async () => {
  stripe = await startFakeStripe(SECRET_KEY);
  service = await startTestService({ models: testModels(), worker: false, env: paymentEnv(stripe.url) });
});

test.after.always(async () => {
  await service?.stop();
  await stripe?.close();
});

interface Billing {
  currentPlan: string;
  paymentsConfigured: boolean;
  hasPaymentCustomer: boolean;
  subscription: {
    plan: string;
    billing: string;
    status: string;
    currentPeriodEnd: string | null;
    cancelAt: string | null;
  } | null;
  plans: {
    plan: string;
    memoryLimit: number | null;
    requestsPerMinutePerToken: number;
    auditRetentionDays: number;
    mcpRequestsPerMinutePerIp: number | null;
    features: string[];
    prices: Record<"monthly" | "yearly", { unitAmount: number; currency: string } | null>;
  }[];
}

async function billingOf(cookie: string): Promise<Billing> {
  const res = await fetch(`${service.httpUrl}/api/billing`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`GET /api/billing answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Billing;
}

/** A paying workspace as the payment webhook leaves it, with its subscription at the fake Stripe. */
async function payingTenant(input: {
  plan: "pro" | "team";
  priceId: string;
  currency?: string;
  cancelAt?: number | null;
}) {
  const tenant = await service.createTenant({ plan: input.plan });
  const id = tenant.tenantId.slice(0, 8);
  const periodEnd = Math.floor(Date.now() / 1000) + 12 * 86_400;
  stripe.subscriptions.set(`sub_${id}`, {
    id: `sub_${id}`,
    customer: `cus_${id}`,
    ...(input.currency ? { currency: input.currency } : {}),
    status: "active",
    priceId: input.priceId,
    currentPeriodEnd: periodEnd,
    cancelAtPeriodEnd: false,
    cancelAt: input.cancelAt ?? null,
    metadata: { tenant_id: tenant.tenantId },
  });
  const cancelAt = input.cancelAt ? new Date(input.cancelAt * 1000) : null;
  await service.storage.db.sql`
    update tenants set payment_customer_id = ${`cus_${id}`}, payment_subscription_id = ${`sub_${id}`},
                       subscription_cancel_at = ${cancelAt}
     where id = ${tenant.tenantId}`;
  return { tenant, periodEnd, cookie: await createSessionCookie(service, tenant.tenantId) };
}

test("a free workspace: every plan with the plan table's limits and the configured prices, no subscription, no portal", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const billing = await billingOf(await createSessionCookie(service, tenant.tenantId));
  t.is(billing.currentPlan, "free");
  t.true(billing.paymentsConfigured);
  t.false(billing.hasPaymentCustomer);
  t.is(billing.subscription, null);
  t.deepEqual(
    billing.plans.map((p) => p.plan),
    ["free", "plus", "pro", "team", "api"],
  );
  for (const offer of billing.plans) {
    const row = PLANS[offer.plan as keyof typeof PLANS];
    t.is(offer.memoryLimit, row.memoryLimit ?? null, offer.plan);
    t.is(offer.requestsPerMinutePerToken, row.requestsPerMinutePerToken, offer.plan);
    t.is(offer.auditRetentionDays, row.auditRetentionDays, offer.plan);
    t.is(offer.mcpRequestsPerMinutePerIp, row.mcpRequestsPerMinutePerIp ?? null, offer.plan);
    t.deepEqual(offer.features, [...row.features], offer.plan);
  }
  const prices = Object.fromEntries(billing.plans.map((p) => [p.plan, p.prices]));
  t.deepEqual(prices, {
    free: { monthly: null, yearly: null },
    plus: { monthly: { unitAmount: 500, currency: "eur" }, yearly: null },
    pro: { monthly: { unitAmount: 1900, currency: "eur" }, yearly: { unitAmount: 19000, currency: "eur" } },
    team: { monthly: { unitAmount: 4900, currency: "eur" }, yearly: null },
    api: { monthly: { unitAmount: 9900, currency: "eur" }, yearly: null },
  });
});

test("a paying workspace: its plan and period end, a scheduled cancellation, prices in the customer's currency", async (t) => {
  const cancelAt = Math.floor(Date.now() / 1000) + 12 * 86_400;
  const { cookie, periodEnd } = await payingTenant({
    plan: "pro",
    priceId: "price_pro_yearly",
    currency: "usd",
    cancelAt,
  });
  const billing = await billingOf(cookie);
  t.is(billing.currentPlan, "pro");
  t.true(billing.hasPaymentCustomer);
  t.deepEqual(billing.subscription, {
    plan: "pro",
    billing: "yearly",
    status: "active",
    currentPeriodEnd: new Date(periodEnd * 1000).toISOString(),
    cancelAt: new Date(cancelAt * 1000).toISOString(),
  });
  const pro = billing.plans.find((p) => p.plan === "pro");
  t.deepEqual(pro?.prices, {
    monthly: { unitAmount: 2100, currency: "usd" },
    yearly: { unitAmount: 21000, currency: "usd" },
  });
  // A price without a US-dollar option stays in its own currency.
  t.deepEqual(billing.plans.find((p) => p.plan === "plus")?.prices.monthly, {
    unitAmount: 500,
    currency: "eur",
  });
});

test("a subscription that renews has no cancelAt; an API token cannot read the billing page's data", async (t) => {
  const { cookie, tenant } = await payingTenant({ plan: "team", priceId: "price_team_monthly" });
  const billing = await billingOf(cookie);
  t.like(billing.subscription, { plan: "team", billing: "monthly", cancelAt: null });
  const withToken = await fetch(`${service.httpUrl}/api/billing`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  t.true([401, 403].includes(withToken.status), String(withToken.status));
});

// Serial (ava runs serial tests first): the fake fails for everybody meanwhile.
test.serial("Stripe unreachable: the page's data still comes, with what the webhooks stored", async (t) => {
  const cancelAt = Math.floor(Date.now() / 1000) + 5 * 86_400;
  const { cookie } = await payingTenant({ plan: "pro", priceId: "price_pro_monthly", cancelAt });
  stripe.failing = true;
  try {
    const billing = await billingOf(cookie);
    t.is(billing.currentPlan, "pro");
    t.deepEqual(billing.subscription, {
      plan: "pro",
      billing: "monthly",
      status: "unknown",
      currentPeriodEnd: null,
      cancelAt: new Date(cancelAt * 1000).toISOString(),
    });
    t.is(billing.plans.length, 5);
  } finally {
    stripe.failing = false;
  }
});
