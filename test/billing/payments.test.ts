import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { runCli } from "../lifecycle/lifecycle-kit.js";
import { createSessionCookie } from "../rest/sessions.js";
import {
  completedSession,
  deliver,
  paymentEnv,
  post,
  SECRET_KEY,
  stripeEvent,
  WEBHOOK_SECRET,
} from "./payment-fixtures.js";

// Checkout, customer portal and the signed payment webhook end to end: the real `stripe` SDK inside
// the service talks to a local fake of the Stripe API (STRIPE_API_BASE), webhooks are signed with the
// SDK's own generateTestHeaderString, and every effect is read back from PostgreSQL.

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

const sql = () => service.storage.db.sql;

async function tenantRow(tenantId: string) {
  const [row] = await sql()<
    {
      plan: string;
      payment_customer_id: string | null;
      payment_subscription_id: string | null;
      subscription_cancel_at: Date | null;
    }[]
  >`select plan, payment_customer_id, payment_subscription_id, subscription_cancel_at from tenants where id = ${tenantId}`;
  return row;
}

async function auditCount(tenantId: string, action: string): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`
    select count(*)::int as n from audit_log where tenant_id = ${tenantId} and action = ${action}`;
  return row?.n ?? 0;
}

/** The calls to the fake Stripe about one tenant (tests of this file run concurrently). */
const callsFor = (tenantId: string) =>
  stripe.requests.filter((r) => r.form.client_reference_id === tenantId || r.form.customer === tenantId);

async function sessionEmail(cookie: string): Promise<string> {
  const res = await fetch(`${service.httpUrl}/api/auth/session`, { headers: { cookie } });
  return ((await res.json()) as { email: string }).email;
}

test("POST /api/checkout creates a subscription Checkout Session with the configured price and the tenant id", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const email = await sessionEmail(cookie);
  const res = await post(service.httpUrl, "/api/checkout", { plan: "pro", billing: "yearly" }, cookie);
  t.is(res.status, 200);
  const body = (await res.json()) as { url: string };
  t.regex(body.url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/);

  const sent = callsFor(tenant.tenantId);
  t.is(sent.length, 1);
  const [call] = sent;
  t.is(call?.method, "POST");
  t.is(call?.path, "/v1/checkout/sessions");
  t.is(call?.headers.authorization, `Bearer ${SECRET_KEY}`);
  t.deepEqual(call?.form, {
    mode: "subscription",
    "line_items[0][price]": "price_pro_yearly",
    "line_items[0][quantity]": "1",
    client_reference_id: tenant.tenantId,
    "metadata[tenant_id]": tenant.tenantId,
    "metadata[plan]": "pro",
    "metadata[billing]": "yearly",
    "subscription_data[metadata][tenant_id]": tenant.tenantId,
    "subscription_data[metadata][plan]": "pro",
    "subscription_data[metadata][billing]": "yearly",
    customer_email: email,
    success_url: "http://localhost:0/dashboard/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}",
    cancel_url: "http://localhost:0/dashboard/billing?checkout=cancelled",
  });
  // Nothing changes before the provider reports the payment.
  t.is((await tenantRow(tenant.tenantId))?.plan, "free");
});

test("POST /api/checkout: billing defaults to monthly; free or unknown plans are 400; an unpriced choice 503", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  t.is((await post(service.httpUrl, "/api/checkout", { plan: "team" }, cookie)).status, 200);
  t.is(callsFor(tenant.tenantId)[0]?.form["line_items[0][price]"], "price_team_monthly");

  for (const body of [{ plan: "free" }, { plan: "gold" }, {}, { plan: "pro", billing: "weekly" }]) {
    const res = await post(service.httpUrl, "/api/checkout", body, cookie);
    t.is(res.status, 400, JSON.stringify(body));
  }
  const unpriced = await post(service.httpUrl, "/api/checkout", { plan: "team", billing: "yearly" }, cookie);
  t.is(unpriced.status, 503);
  t.regex(
    ((await unpriced.json()) as { error: string }).error,
    /payments not configured.*STRIPE_PRICE_TEAM_YEARLY/,
  );
  // An API token is not a session: checkout is session-only (spec "Authentication" 5).
  const withToken = await fetch(`${service.httpUrl}/api/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
    body: JSON.stringify({ plan: "pro" }),
  });
  t.true([401, 403].includes(withToken.status), String(withToken.status));
});

// Serial (ava runs serial tests before the concurrent ones): the fake fails for everybody meanwhile.
test.serial("a payment-provider failure is 502 and changes nothing", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  stripe.failing = true;
  try {
    const res = await post(service.httpUrl, "/api/checkout", { plan: "pro" }, cookie);
    t.is(res.status, 502);
  } finally {
    stripe.failing = false;
  }
});

test("webhook: checkout.session.completed activates the plan once, stores the ids, audits subscription.activated; replay and portal", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  t.is((await post(service.httpUrl, "/api/subscription/portal", undefined, cookie)).status, 404);

  const event = stripeEvent(
    "checkout.session.completed",
    completedSession({ tenantId: tenant.tenantId, plan: "pro", customer: "cus_A1", subscription: "sub_A1" }),
  );
  const first = await deliver(service.httpUrl, event);
  t.is(first.status, 200);
  t.deepEqual(first.body, { received: true, processed: true, eventType: "checkout.session.completed" });
  t.like(await tenantRow(tenant.tenantId), {
    plan: "pro",
    payment_customer_id: "cus_A1",
    payment_subscription_id: "sub_A1",
  });
  t.is(await auditCount(tenant.tenantId, "subscription.activated"), 1);

  // The same event again (Stripe retries; an attacker replays within 5 minutes): no second effect.
  await sql()`update tenants set plan = 'free' where id = ${tenant.tenantId}`;
  const replay = await deliver(service.httpUrl, event);
  t.is(replay.status, 200);
  t.deepEqual(replay.body, { received: true, processed: false, eventType: "checkout.session.completed" });
  t.is((await tenantRow(tenant.tenantId))?.plan, "free");
  t.is(await auditCount(tenant.tenantId, "subscription.activated"), 1);
  await sql()`update tenants set plan = 'pro' where id = ${tenant.tenantId}`;

  // With a payment customer the portal opens.
  const portal = await post(service.httpUrl, "/api/subscription/portal", undefined, cookie);
  t.is(portal.status, 200);
  t.regex(((await portal.json()) as { url: string }).url, /^https:\/\/billing\.stripe\.com\/p\/session\//);
  t.like(
    stripe.requests.find((r) => r.form.customer === "cus_A1"),
    {
      method: "POST",
      path: "/v1/billing_portal/sessions",
      form: { customer: "cus_A1", return_url: "http://localhost:0/dashboard/billing" },
    },
  );
  // A second checkout would start a second subscription: 409, go to the portal.
  t.is((await post(service.httpUrl, "/api/checkout", { plan: "team" }, cookie)).status, 409);
});

test("webhook: two concurrent deliveries of one event take effect once", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const event = stripeEvent(
    "checkout.session.completed",
    completedSession({ tenantId: tenant.tenantId, plan: "team", customer: "cus_C1", subscription: "sub_C1" }),
  );
  const answers = await Promise.all([1, 2, 3, 4].map(() => deliver(service.httpUrl, event)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  t.is(answers.filter((a) => a.body.processed === true).length, 1);
  t.is(await auditCount(tenant.tenantId, "subscription.activated"), 1);
  const [row] = await sql()<
    { n: number }[]
  >`select count(*)::int as n from payment_events where event_id = ${event.id}`;
  t.is(row?.n, 1);
});

test("webhook: tampered body, wrong secret, stale timestamp, missing or malformed header are 400 and change nothing", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const event = () =>
    stripeEvent(
      "checkout.session.completed",
      completedSession({ tenantId: tenant.tenantId, plan: "api", customer: "cus_X", subscription: "sub_X" }),
    );
  const cases: [string, Parameters<typeof deliver>[2]][] = [
    ["tampered body", { tamper: (p) => p.replace('"plan": "api"', '"plan": "api" ') }],
    ["wrong secret", { secret: "whsec_wrong" }],
    ["stale timestamp (6 minutes)", { timestamp: Math.floor(Date.now() / 1000) - 360 }],
    ["missing header", { signature: null }],
    ["malformed header", { signature: "sha256=abc" }],
  ];
  for (const [name, options] of cases) {
    const res = await deliver(service.httpUrl, event(), options);
    t.is(res.status, 400, name);
    t.regex(String(res.body.error), /Provider-Signature/, name);
  }
  // 4 minutes old is inside the 5-minute tolerance.
  const recent = await deliver(service.httpUrl, event(), { timestamp: Math.floor(Date.now() / 1000) - 240 });
  t.is(recent.status, 200);
  t.is((await tenantRow(tenant.tenantId))?.plan, "api");
  t.is(await auditCount(tenant.tenantId, "subscription.activated"), 1);
  t.is(WEBHOOK_SECRET.startsWith("whsec_"), true);
});

test("webhook: Stripe's own Stripe-Signature header is accepted like Provider-Signature; a wrong one is 400", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const event = stripeEvent(
    "checkout.session.completed",
    completedSession({ tenantId: tenant.tenantId, plan: "pro", customer: "cus_S", subscription: "sub_S" }),
  );
  const forged = await deliver(service.httpUrl, event, {
    headerName: "stripe-signature",
    secret: "whsec_wrong",
  });
  t.is(forged.status, 400);
  t.is((await tenantRow(tenant.tenantId))?.plan, "free");
  const res = await deliver(service.httpUrl, event, { headerName: "stripe-signature" });
  t.is(res.status, 200);
  t.is((await tenantRow(tenant.tenantId))?.plan, "pro");
});

test("erasing a paying workspace cancels its subscription at Stripe first (issue 20)", async (t) => {
  const tenant = await service.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const subscriptionId = `sub_erase_${tenant.tenantId.slice(0, 8)}`;
  stripe.subscriptions.set(subscriptionId, {
    id: subscriptionId,
    customer: "cus_erase",
    status: "active",
    priceId: "price_pro_monthly",
    currentPeriodEnd: Math.floor(Date.now() / 1000) + 30 * 86_400,
    cancelAtPeriodEnd: false,
    cancelAt: null,
    metadata: { tenant_id: tenant.tenantId },
  });
  const completed = stripeEvent(
    "checkout.session.completed",
    completedSession({
      tenantId: tenant.tenantId,
      plan: "pro",
      customer: "cus_erase",
      subscription: subscriptionId,
    }),
  );
  t.is((await deliver(service.httpUrl, completed)).status, 200);
  const erase = await fetch(`${service.httpUrl}/api/tenant/erase`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ confirmSlug: tenant.slug }),
  });
  t.is(erase.status, 200, await erase.clone().text());
  t.truthy(
    stripe.requests.find((r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subscriptionId}`),
  );
  t.is(stripe.subscriptions.get(subscriptionId)?.status, "canceled");
  t.is(await tenantRow(tenant.tenantId), undefined);
});

// Serial: it switches the fake Stripe into failing mode, which concurrent tests must not see.
test.serial(
  "the operator's `tenant erase` cancels the subscription at Stripe too; a refusal erases nothing",
  async (t) => {
    const tenant = await service.createTenant({ plan: "free" });
    const subscriptionId = `sub_cli_${tenant.tenantId.slice(0, 8)}`;
    stripe.subscriptions.set(subscriptionId, {
      id: subscriptionId,
      customer: "cus_cli",
      status: "active",
      priceId: "price_team_monthly",
      currentPeriodEnd: Math.floor(Date.now() / 1000) + 30 * 86_400,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      metadata: { tenant_id: tenant.tenantId },
    });
    const completed = stripeEvent(
      "checkout.session.completed",
      completedSession({
        tenantId: tenant.tenantId,
        plan: "team",
        customer: "cus_cli",
        subscription: subscriptionId,
      }),
    );
    t.is((await deliver(service.httpUrl, completed)).status, 200);
    t.is((await tenantRow(tenant.tenantId))?.payment_subscription_id, subscriptionId);
    const args = ["tenant", "erase", "--slug", tenant.slug, "--confirm", tenant.slug];
    const deletes = () =>
      stripe.requests.filter(
        (r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subscriptionId}`,
      );

    // Stripe refuses (500 after the SDK's retries): the command fails and the workspace stays whole.
    stripe.failing = true;
    let refused: Awaited<ReturnType<typeof runCli>>;
    try {
      refused = await runCli(service, args, paymentEnv(stripe.url));
    } finally {
      stripe.failing = false;
    }
    t.is(refused.code, 1, refused.stdout);
    t.regex(refused.stderr, /could not cancel the subscription; nothing was erased/);
    t.true(deletes().length >= 1, "the SDK called DELETE /v1/subscriptions/{id}");
    t.is(stripe.subscriptions.get(subscriptionId)?.status, "active");
    t.is((await tenantRow(tenant.tenantId))?.plan, "team", "nothing was erased");

    const done = await runCli(service, args, paymentEnv(stripe.url));
    t.is(done.code, 0, done.stderr);
    t.regex(done.stdout, /vector tables; its subscription was cancelled at Stripe\n$/);
    const call = deletes().at(-1);
    t.is(call?.headers.authorization, `Bearer ${SECRET_KEY}`);
    t.is(stripe.subscriptions.get(subscriptionId)?.status, "canceled");
    t.is(await tenantRow(tenant.tenantId), undefined);
    const [record] = await sql()<{ actor: string }[]>`
    select actor from workspace_erasures where tenant_id = ${tenant.tenantId}`;
    t.is(record?.actor, "operator");

    // Without payments configured the CLI never calls Stripe (and erases as before).
    const other = await service.createTenant({ plan: "free" });
    const before = stripe.requests.length;
    const plain = await runCli(service, ["tenant", "erase", "--slug", other.slug, "--confirm", other.slug]);
    t.is(plain.code, 0, plain.stderr);
    t.regex(plain.stdout, /vector tables\n$/);
    t.is(stripe.requests.length, before);
  },
);

test("webhook: unknown kinds and unknown tenants are 200 and ignored", async (t) => {
  const unknownKind = await deliver(
    service.httpUrl,
    stripeEvent("invoice.paid", { id: "in_1", object: "invoice" }),
  );
  t.is(unknownKind.status, 200);
  t.is(unknownKind.body.eventType, "invoice.paid");
  const nobody = await deliver(
    service.httpUrl,
    stripeEvent(
      "checkout.session.completed",
      completedSession({
        tenantId: "00000000-0000-4000-8000-000000000000",
        plan: "pro",
        customer: "cus_N",
        subscription: "sub_N",
      }),
    ),
  );
  t.is(nobody.status, 200);
  const [row] = await sql()<{ outcome: string }[]>`
    select outcome from payment_events where event_type = 'checkout.session.completed' and tenant_id is null`;
  t.is(row?.outcome, "unknown_tenant");
});

test("subscription.updated keeps plan and cancellation in step; deleted → free limits on the next request", async (t) => {
  // No limits override: the plan's own limits apply (api: 120/min, unlimited memories).
  const tenant = await service.createTenant({ plan: "free", limitsOverride: {} });
  await deliver(
    service.httpUrl,
    stripeEvent(
      "checkout.session.completed",
      completedSession({
        tenantId: tenant.tenantId,
        plan: "api",
        customer: "cus_D1",
        subscription: "sub_D1",
      }),
    ),
  );
  const periodEnd = Math.floor(Date.now() / 1000) + 20 * 86_400;
  const subscription = {
    id: "sub_D1",
    customer: "cus_D1",
    status: "active",
    priceId: "price_team_monthly",
    currentPeriodEnd: periodEnd,
    cancelAtPeriodEnd: true,
    cancelAt: periodEnd,
    metadata: { tenant_id: tenant.tenantId, plan: "api" },
  };
  const updated = await deliver(
    service.httpUrl,
    stripeEvent("customer.subscription.updated", stripe.subscriptionObject(subscription)),
  );
  t.is(updated.status, 200);
  const row = await tenantRow(tenant.tenantId);
  t.is(row?.plan, "team");
  t.is(row?.subscription_cancel_at?.getTime(), periodEnd * 1000);
  t.is(await auditCount(tenant.tenantId, "subscription.plan_changed"), 1);
  t.is(await auditCount(tenant.tenantId, "subscription.cancellation_scheduled"), 1);

  // An older event arriving late changes nothing.
  const stale = await deliver(
    service.httpUrl,
    stripeEvent(
      "customer.subscription.updated",
      stripe.subscriptionObject({
        ...subscription,
        priceId: "price_api_monthly",
        cancelAtPeriodEnd: false,
        cancelAt: null,
      }),
      Math.floor(Date.now() / 1000) - 120,
    ),
  );
  t.is(stale.status, 200);
  t.is((await tenantRow(tenant.tenantId))?.plan, "team");

  // Store 2,500 memories directly (the free limit), then end the subscription.
  await sql()`
    insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256, status)
    select ${tenant.tenantId}, gen_random_uuid(), 'entry', 'm' || i, 'content ' || i,
           sha256(('content ' || i)::bytea), 'indexed'
    from generate_series(1, 2500) as i`;
  const store = (title: string) =>
    fetch(`${service.httpUrl}/api/documents`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
      body: JSON.stringify({ title, content: `body of ${title}` }),
    });
  t.is((await store("before the downgrade")).status, 202);

  const deleted = await deliver(
    service.httpUrl,
    stripeEvent(
      "customer.subscription.deleted",
      stripe.subscriptionObject({ ...subscription, status: "canceled" }),
    ),
  );
  t.is(deleted.status, 200);
  t.like(await tenantRow(tenant.tenantId), {
    plan: "free",
    payment_subscription_id: null,
    payment_customer_id: "cus_D1",
  });
  t.is(await auditCount(tenant.tenantId, "subscription.cancelled"), 1);

  const refused = await store("after the downgrade");
  t.is(refused.status, 402);
  const gate = (await refused.json()) as Record<string, unknown>;
  t.like(gate, { error: "plan_upgrade_required", currentPlan: "free", limit: 2500, used: 2501 });
  t.is(typeof gate.message, "string");

  // Free: 30 requests per token and minute (2 store calls so far; the sliding window may let 1-2 more pass).
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
      body: JSON.stringify({ query: "content" }),
    });
    statuses.push(res.status);
    if (res.status === 429) break;
  }
  t.is(statuses.at(-1), 429, statuses.join(","));
  // Under the api plan's 120 per minute none of these 32 calls would be refused.
  t.true(statuses.length <= 30, statuses.join(","));
});

test("onboarding with a paid plan returns the checkout URL and stays free until the webhook", async (t) => {
  const cookie = await createSessionCookie(service, undefined);
  const email = await sessionEmail(cookie);
  const slug = `paid-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await post(service.httpUrl, "/api/onboarding", { slug, name: "Paid", plan: "api" }, cookie);
  t.is(res.status, 200);
  const body = (await res.json()) as { tenantId: string; redirectUrl: string };
  t.regex(body.redirectUrl, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/);
  t.like(callsFor(body.tenantId)[0]?.form, {
    "line_items[0][price]": "price_api_monthly",
    client_reference_id: body.tenantId,
    "metadata[plan]": "api",
    customer_email: email,
  });
  t.is((await tenantRow(body.tenantId))?.plan, "free");
  await deliver(
    service.httpUrl,
    stripeEvent(
      "checkout.session.completed",
      completedSession({ tenantId: body.tenantId, plan: "api", customer: "cus_O1", subscription: "sub_O1" }),
    ),
  );
  t.is((await tenantRow(body.tenantId))?.plan, "api");
  // Now the signed-in owner can create an API token (api plan gate).
  const token = await post(service.httpUrl, "/api/tokens", { name: "ci", scopes: ["read"] }, cookie);
  t.is(token.status, 200);
});
