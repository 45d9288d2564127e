import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { cookieHeader, freshIp, signIn } from "./sign-in-helper.js";

// POST /api/onboarding with a real session: validation (400 naming the field), the slug's edge
// cases, 409 for a taken slug or a second workspace, 402 for paid plans without payments, and the
// owner membership it creates.

let service: TestService;
let slugCounter = 0;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { TRUST_PROXY: "true" },
  });
});

test.after.always(async () => {
  await service?.stop();
});

function uniqueSlug(prefix = "ws"): string {
  slugCounter++;
  return `${prefix}-${process.pid}-${slugCounter}-${Math.random().toString(36).slice(2, 6)}`;
}

function onboard(session: string | undefined, body: unknown, ip = freshIp()): Promise<Response> {
  return fetch(`${service.httpUrl}/api/onboarding`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": ip,
      ...(session ? cookieHeader(session) : {}),
    },
    body: JSON.stringify(body),
  });
}

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

test("onboarding creates the workspace, makes the user its owner and points to the dashboard", async (t) => {
  const { session, email } = await signIn(service);
  const slug = uniqueSlug();
  const res = await onboard(session, { slug, name: "  Acme GmbH  ", plan: "free" });
  t.is(res.status, 200);
  const body = (await res.json()) as { tenantId: string; redirectUrl: string };
  t.deepEqual(Object.keys(body).sort(), ["redirectUrl", "tenantId"]);
  t.regex(body.tenantId, /^[0-9a-f-]{36}$/);
  t.is(body.redirectUrl, "http://localhost:0/dashboard");

  const [row] = await service.storage.db.sql<{ slug: string; name: string; plan: string; role: string }[]>`
    select t.slug, t.name, t.plan, m.role from tenants t
    join memberships m on m.tenant_id = t.id join users u on u.id = m.user_id
    where t.id = ${body.tenantId} and u.email = ${email}`;
  t.deepEqual({ ...row }, { slug, name: "Acme GmbH", plan: "free", role: "owner" });

  // The same session now belongs to the workspace (sessions are not cached).
  const who = await fetch(`${service.httpUrl}/api/auth/session`, { headers: cookieHeader(session) });
  t.like(await who.json(), {
    tenantId: body.tenantId,
    tenantSlug: slug,
    plan: "free",
    scopes: ["read", "write", "admin"],
  });

  const [audit] = await service.storage.db.sql<{ action: string; details: unknown }[]>`
    select action, details from audit_log where tenant_id = ${body.tenantId} and action = 'tenant.onboarded'`;
  t.deepEqual(audit?.details, { slug, requestedPlan: "free" });
});

test("slug edge cases: 2 and 63 characters pass; 1, 64, uppercase, leading dash, odd characters are 400", async (t) => {
  // Each test file has a database of its own, so these fixed slugs are free.
  for (const slug of ["a1", `z${"9".repeat(62)}`, "0-"]) {
    const { session } = await signIn(service);
    const res = await onboard(session, { slug, name: "Edge", plan: "free" });
    t.is(res.status, 200, `${slug} (${slug.length} characters)`);
  }
  const { session } = await signIn(service);
  for (const slug of [
    "a",
    `a${"b".repeat(63)}`,
    "Acme",
    "-acme",
    "acme_corp",
    "acme corp",
    "ac.me",
    "",
    "äcme",
  ]) {
    const res = await onboard(session, { slug, name: "Edge", plan: "free" });
    t.is(res.status, 400, JSON.stringify(slug));
    t.regex(await errorOf(res), /^slug: /, JSON.stringify(slug));
  }
});

test("name and plan are validated, naming the field", async (t) => {
  const { session } = await signIn(service);
  const cases: [unknown, RegExp][] = [
    [{ slug: uniqueSlug(), name: "", plan: "free" }, /^name: /],
    [{ slug: uniqueSlug(), name: "x".repeat(201), plan: "free" }, /^name: /],
    [{ slug: uniqueSlug(), name: "ok", plan: "gold" }, /^plan: /],
    [{ slug: uniqueSlug(), name: "ok" }, /^plan: /],
    [{ name: "ok", plan: "free" }, /^slug: /],
    [{ slug: uniqueSlug(), name: "ok", plan: "free", tenantId: "x" }, /tenantId/],
  ];
  for (const [body, message] of cases) {
    const res = await onboard(session, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(await errorOf(res), message, JSON.stringify(body));
  }
  t.is((await onboard(session, { slug: uniqueSlug(), name: "x".repeat(200), plan: "free" })).status, 200);
});

test("a taken slug is 409 naming the slug", async (t) => {
  const slug = uniqueSlug("taken");
  const first = await signIn(service);
  t.is((await onboard(first.session, { slug, name: "First", plan: "free" })).status, 200);
  const second = await signIn(service);
  const res = await onboard(second.session, { slug, name: "Second", plan: "free" });
  t.is(res.status, 409);
  t.regex(await errorOf(res), new RegExp(`slug "${slug}" is taken`));
});

test("a user who already has a workspace gets 409, also for a double submit", async (t) => {
  const { session } = await signIn(service);
  const answers = await Promise.all([
    onboard(session, { slug: uniqueSlug("dbl"), name: "One", plan: "free" }),
    onboard(session, { slug: uniqueSlug("dbl"), name: "Two", plan: "free" }),
  ]);
  t.deepEqual(answers.map((r) => r.status).sort(), [200, 409]);
  const later = await onboard(session, { slug: uniqueSlug("dbl"), name: "Three", plan: "free" });
  t.is(later.status, 409);
  t.regex(await errorOf(later), /already have a workspace/);
});

test("a paid plan while payments are not configured is 402 with the plan-gate body, and creates nothing", async (t) => {
  const { session } = await signIn(service);
  const slug = uniqueSlug("paid");
  for (const plan of ["plus", "pro", "team", "api"]) {
    const res = await onboard(session, { slug, name: "Paid", plan });
    t.is(res.status, 402, plan);
    const body = (await res.json()) as Record<string, unknown>;
    t.like(body, { error: "plan_upgrade_required", feature: `plan_${plan}`, currentPlan: "free" });
    t.regex(String(body.message), /payments are not configured/);
    t.is(typeof body.upgradeUrl, "string");
  }
  const rows = await service.storage.db.sql`select 1 from tenants where slug = ${slug}`;
  t.is(rows.length, 0);
  t.is((await onboard(session, { slug, name: "Free after all", plan: "free" })).status, 200);
});

test("onboarding needs a session: none is 401, an API token is 401", async (t) => {
  t.is((await onboard(undefined, { slug: uniqueSlug(), name: "x", plan: "free" })).status, 401);
  const tenant = await service.createTenant();
  const res = await fetch(`${service.httpUrl}/api/onboarding`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${tenant.token}`,
      "x-forwarded-for": freshIp(),
    },
    body: JSON.stringify({ slug: uniqueSlug(), name: "x", plan: "free" }),
  });
  t.is(res.status, 401);
});

test("onboarding is limited to 10 requests per 60 s per IP, with Retry-After", async (t) => {
  const { session } = await signIn(service);
  const ip = freshIp();
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++)
    statuses.push((await onboard(session, { slug: "X", name: "x", plan: "free" }, ip)).status);
  t.deepEqual(statuses, Array(10).fill(400));
  const limited = await onboard(session, { slug: uniqueSlug(), name: "x", plan: "free" }, ip);
  t.is(limited.status, 429);
  const retryAfter = limited.headers.get("retry-after") ?? "";
  t.regex(retryAfter, /^\d+$/);
  t.true(Number(retryAfter) >= 1 && Number(retryAfter) <= 60);
  t.is((await onboard(session, { slug: uniqueSlug(), name: "x", plan: "free" }, freshIp())).status, 200);
});
