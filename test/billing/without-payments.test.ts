import test from "ava";
import { purgeAuditLog } from "../../core/store/purge-audit-log.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { freshIp } from "../tenancy/sign-in-helper.js";
import { post } from "./payment-fixtures.js";

// A fresh clone with no Stripe keys: the payment routes answer 503 "payments not configured" and
// the rest works; SELF_HOSTED_PLAN lets a signed-up user reach the api plan (and tokens) without
// payment; the audit-log retention purge follows each workspace's current plan.

let plain: TestService;
let selfHosted: TestService;

test.before(async () => {
  [plain, selfHosted] = await Promise.all([
    startTestService({ models: testModels(), worker: false, env: { TRUST_PROXY: "true" } }),
    startTestService({
      models: testModels(),
      worker: false,
      env: { TRUST_PROXY: "true", SELF_HOSTED_PLAN: "api" },
    }),
  ]);
});

test.after.always(async () => {
  await plain?.stop();
  await selfHosted?.stop();
});

test("no keys: checkout, portal, webhook and Kündigung are 503 payments not configured; the rest works", async (t) => {
  const tenant = await plain.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(plain, tenant.tenantId);
  const answers = [
    await post(plain.httpUrl, "/api/checkout", { plan: "pro" }, cookie),
    await post(plain.httpUrl, "/api/subscription/portal", undefined, cookie),
    await fetch(`${plain.httpUrl}/api/checkout/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "provider-signature": "t=1,v1=00" },
      body: "{}",
    }),
    await post(plain.httpUrl, "/api/kuendigung", { email: "a@example.test", workspace: "acme" }),
  ];
  for (const res of answers) {
    t.is(res.status, 503, res.url);
    t.regex(((await res.json()) as { error: string }).error, /^payments not configured/);
  }
  const stored = await fetch(`${plain.httpUrl}/api/documents`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
    body: JSON.stringify({ title: "still works", content: "the service without payments" }),
  });
  t.is(stored.status, 202);
  // Onboarding a paid plan is the spec's 402 with the plan-gate body.
  const newcomer = await createSessionCookie(plain, undefined);
  const paid = await post(
    plain.httpUrl,
    "/api/onboarding",
    { slug: `p-${process.pid}`, name: "P", plan: "api" },
    newcomer,
  );
  t.is(paid.status, 402);
  t.like(await paid.json(), { error: "plan_upgrade_required", currentPlan: "free" });
});

test("no keys: GET /api/billing answers the plans and limits without prices, no portal, no subscription", async (t) => {
  const tenant = await plain.createTenant({ plan: "free" });
  const cookie = await createSessionCookie(plain, tenant.tenantId);
  const res = await fetch(`${plain.httpUrl}/api/billing`, { headers: { cookie } });
  t.is(res.status, 200);
  const billing = (await res.json()) as {
    currentPlan: string;
    paymentsConfigured: boolean;
    hasPaymentCustomer: boolean;
    subscription: unknown;
    plans: { plan: string; prices: { monthly: unknown; yearly: unknown } }[];
  };
  t.like(billing, {
    currentPlan: "free",
    paymentsConfigured: false,
    hasPaymentCustomer: false,
    subscription: null,
  });
  t.is(billing.plans.length, 5);
  t.true(billing.plans.every((p) => p.prices.monthly === null && p.prices.yearly === null));
});

test("SELF_HOSTED_PLAN=api: onboarding grants api without payment, and the owner can create a token", async (t) => {
  const cookie = await createSessionCookie(selfHosted, undefined);
  const slug = `self-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await post(selfHosted.httpUrl, "/api/onboarding", { slug, name: "Self", plan: "free" }, cookie);
  t.is(res.status, 200);
  const body = (await res.json()) as { tenantId: string; redirectUrl: string };
  t.is(body.redirectUrl, "http://localhost:0/dashboard");
  const [row] = await selfHosted.storage.db.sql<
    { plan: string }[]
  >`select plan from tenants where id = ${body.tenantId}`;
  t.is(row?.plan, "api");
  const [audit] = await selfHosted.storage.db.sql<{ details: Record<string, unknown> }[]>`
    select details from audit_log where tenant_id = ${body.tenantId} and action = 'tenant.onboarded'`;
  t.like(audit?.details, { requestedPlan: "free", grantedPlan: "api", via: "SELF_HOSTED_PLAN" });
  const token = await fetch(`${selfHosted.httpUrl}/api/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), cookie },
    body: JSON.stringify({ name: "assistant", scopes: ["read", "write"] }),
  });
  t.is(token.status, 200);
});

test("retention purge: entries past the plan's retention go, in batches; idempotent; a downgrade shortens it", async (t) => {
  const sql = plain.storage.db.sql;
  const pro = await plain.createTenant({ plan: "pro", limitsOverride: {} });
  const free = await plain.createTenant({ plan: "free", limitsOverride: {} });
  const enterprise = await plain.createTenant({ plan: "api", limitsOverride: { auditRetentionDays: 1825 } });
  const ages = [10, 31, 60, 89, 91, 400, 800, 1900];
  for (const tenant of [pro, free, enterprise]) {
    for (const days of ages) {
      await sql`
        insert into audit_log (tenant_id, action, created_at)
        values (${tenant.tenantId}, 'test.entry', now() - make_interval(days => ${days}))`;
    }
  }
  const left = async (tenantId: string) =>
    (
      await sql<{ days: number }[]>`
        select extract(day from now() - created_at)::int as days from audit_log
        where tenant_id = ${tenantId} and action = 'test.entry' order by created_at desc`
    ).map((r) => r.days);

  const first = await purgeAuditLog(sql, { batchSize: 2 });
  t.true(first.deleted >= 5 + 3 + 1);
  t.deepEqual(await left(pro.tenantId), [10, 31, 60, 89]);
  t.deepEqual(await left(free.tenantId), [10]);
  t.deepEqual(await left(enterprise.tenantId), [10, 31, 60, 89, 91, 400, 800]);

  const second = await purgeAuditLog(sql, { batchSize: 2 });
  t.deepEqual(await left(pro.tenantId), [10, 31, 60, 89]);
  t.is(second.deleted, 0);

  // Downgrade pro → free: from the next run on, 30 days.
  await sql`update tenants set plan = 'free' where id = ${pro.tenantId}`;
  await purgeAuditLog(sql);
  t.deepEqual(await left(pro.tenantId), [10]);
});
