import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.js";
import { type MailCatcher, type ReceivedMail, startMailCatcher } from "../helpers/mail-catcher.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { freshIp } from "../tenancy/sign-in-helper.js";
import { paymentEnv, post, SECRET_KEY } from "./payment-fixtures.js";

// The public cancellation button (§312k BGB) end to end: step 1 names the contract and returns a
// signed one-time token, step 2 ("jetzt kündigen") cancels at the period end through the real
// stripe SDK against the local fake Stripe API, and a local SMTP server (smtp-server) catches the
// confirmation mail. Known and unknown contracts answer alike.

let smtp: MailCatcher;
let mails: ReceivedMail[];
let service: TestService;
let stripe: FakeStripe;

test.before(async () => {
  smtp = await startMailCatcher();
  mails = smtp.mails;
  const port = smtp.port;
  stripe = await startFakeStripe(SECRET_KEY);
  service = await startTestService({
    models: testModels(),
    worker: false,
    env: {
      ...paymentEnv(stripe.url),
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: "Billing <billing@example.test>",
    },
  });
});

test.after.always(async () => {
  await service?.stop();
  await stripe?.close();
  await smtp?.close();
});

let subCounter = 0;

/** A paying workspace with an owner, and its subscription in the fake Stripe. */
async function contract(periodDays = 20) {
  const tenant = await service.createTenant({ plan: "pro" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const who = await fetch(`${service.httpUrl}/api/auth/session`, { headers: { cookie } });
  const { email } = (await who.json()) as { email: string };
  subCounter++;
  const subscriptionId = `sub_K${process.pid}_${subCounter}`;
  const periodEnd = Math.floor(Date.now() / 1000) + periodDays * 86_400;
  stripe.subscriptions.set(subscriptionId, {
    id: subscriptionId,
    customer: `cus_K${subCounter}`,
    status: "active",
    priceId: "price_pro_monthly",
    currentPeriodEnd: periodEnd,
    cancelAtPeriodEnd: false,
    cancelAt: null,
    metadata: { tenant_id: tenant.tenantId, plan: "pro" },
  });
  await service.storage.db.sql`
    update tenants set payment_customer_id = ${`cus_K${subCounter}`}, payment_subscription_id = ${subscriptionId}
    where id = ${tenant.tenantId}`;
  return { ...tenant, email, subscriptionId, periodEnd };
}

const stripeCalls = (subscriptionId: string) =>
  stripe.requests.filter((r) => r.path === `/v1/subscriptions/${subscriptionId}`);

async function step1(body: Record<string, unknown>) {
  const res = await post(service.httpUrl, "/api/kuendigung", body);
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function step2(confirmationToken: string) {
  const res = await post(service.httpUrl, "/api/kuendigung", { confirmationToken });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** The answer's text with its timestamps blanked: what an observer could compare. */
const shape = (message: string) =>
  message.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<ts>").replace(/am .*? \(Europe\/Berlin\)/, "am <ts>");

test("known contract: two steps cancel at the period end, mail the receipt with date, time and effective date", async (t) => {
  const c = await contract();
  const first = await step1({
    email: c.email.toUpperCase(),
    workspace: c.slug,
    kind: "ordinary",
    reason: "zu teuer",
  });
  t.is(first.status, 200);
  t.deepEqual(Object.keys(first.body).sort(), ["confirmationToken", "expiresAt", "message"]);
  t.regex(first.body.message ?? "", /jetzt kündigen/);
  // Step 1 alone changes nothing (a cross-site form post cannot skip the confirmation).
  t.is(stripeCalls(c.subscriptionId).length, 0);

  const second = await step2(first.body.confirmationToken ?? "");
  t.is(second.status, 200);
  t.deepEqual(Object.keys(second.body).sort(), ["message", "receivedAt"]);
  const receivedAt = second.body.receivedAt ?? "";
  t.true(Math.abs(Date.parse(receivedAt) - Date.now()) < 60_000);

  const calls = stripeCalls(c.subscriptionId);
  t.deepEqual(
    calls.map((r) => [r.method, r.form]),
    [
      ["GET", {}],
      ["POST", { cancel_at_period_end: "true" }],
    ],
  );
  const effective = new Date(c.periodEnd * 1000).toISOString();
  const mail = await waitFor(() => mails.find((m) => m.to.includes(c.email)), {
    what: "the confirmation mail",
  });
  t.regex(mail.body, /^From: Billing <billing@example\.test>/m);
  t.true(mail.body.includes(`Eingang: `) && mail.body.includes(receivedAt), mail.body);
  t.true(mail.body.includes(`(${effective})`), mail.body);
  t.regex(mail.body, /ordentliche Kündigung/);
  t.regex(mail.body, /Grund: zu teuer/);

  const [row] = await service.storage.db.sql<{ subscription_cancel_at: Date; plan: string }[]>`
    select subscription_cancel_at, plan from tenants where id = ${c.tenantId}`;
  t.is(row?.subscription_cancel_at.toISOString(), effective);
  t.is(row?.plan, "pro", "the plan stays until the period ends");
  const [audit] = await service.storage.db.sql<{ details: Record<string, unknown> }[]>`
    select details from audit_log where tenant_id = ${c.tenantId} and action = 'subscription.cancellation_received'`;
  t.like(audit?.details, { via: "kuendigung", kind: "ordinary", effectiveAt: effective, receivedAt });

  // The token works once: a second click answers alike and changes nothing.
  const again = await step2(first.body.confirmationToken ?? "");
  t.is(again.status, 200);
  t.is(again.body.receivedAt, receivedAt);
  t.is(stripeCalls(c.subscriptionId).length, 2);
  t.is(mails.filter((m) => m.to.includes(c.email)).length, 1);
});

test("unknown contracts answer exactly like known ones, and nothing happens", async (t) => {
  const c = await contract();
  const known1 = await step1({ email: c.email, workspace: c.slug });
  const unknown1 = await step1({ email: "nobody@example.test", workspace: "no-such-workspace" });
  const wrongOwner = await step1({ email: "someone-else@example.test", workspace: c.slug });
  for (const answer of [known1, unknown1, wrongOwner]) {
    t.is(answer.status, 200);
    t.deepEqual(Object.keys(answer.body).sort(), ["confirmationToken", "expiresAt", "message"]);
    t.is(answer.body.message, known1.body.message);
  }
  const mailsBefore = mails.length;
  const known2 = await step2(known1.body.confirmationToken ?? "");
  const unknown2 = await step2(unknown1.body.confirmationToken ?? "");
  const wrong2 = await step2(wrongOwner.body.confirmationToken ?? "");
  for (const answer of [known2, unknown2, wrong2]) {
    t.is(answer.status, 200);
    t.deepEqual(Object.keys(answer.body).sort(), ["message", "receivedAt"]);
    t.is(shape(answer.body.message ?? ""), shape(known2.body.message ?? ""));
  }
  // Only the real owner's confirmation cancelled and mailed.
  t.is(stripeCalls(c.subscriptionId).length, 2);
  await waitFor(() => mails.find((m) => m.to.includes(c.email)), { what: "the owner's mail" });
  const strangers = ["nobody@example.test", "someone-else@example.test"];
  t.false(mails.slice(mailsBefore).some((m) => m.to.some((to) => strangers.includes(to))));
});

test("a wished date after the period end cancels at that date; an extraordinary cancellation needs a reason", async (t) => {
  const c = await contract(10);
  const wished = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
  t.is((await step1({ email: c.email, workspace: c.slug, kind: "extraordinary" })).status, 400);
  const first = await step1({
    email: c.email,
    workspace: c.slug,
    kind: "extraordinary",
    reason: "Dienst nicht erreichbar",
    wishedDate: wished,
  });
  t.is(first.status, 200);
  t.is((await step2(first.body.confirmationToken ?? "")).status, 200);
  const wishedSeconds = String(Date.parse(`${wished}T00:00:00Z`) / 1000);
  t.deepEqual(stripeCalls(c.subscriptionId).at(-1)?.form, { cancel_at: wishedSeconds });
  const mail = await waitFor(() => mails.find((m) => m.to.includes(c.email)), { what: "the mail" });
  t.regex(mail.body, /außerordentliche Kündigung/);
  t.regex(mail.body, new RegExp(`Gewünschter Zeitpunkt: ${wished}`));
});

test("bad input is 400 naming the field; a tampered or foreign token is 400; HTML forms are read", async (t) => {
  const c = await contract();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ email: "not-an-address", workspace: c.slug }, /^email: /],
    [{ email: c.email }, /^workspace: /],
    [{ email: c.email, workspace: "Not A Slug" }, /^workspace: /],
    [{ email: c.email, workspace: c.slug, wishedDate: "2020-01-01" }, /^wishedDate: /],
    [{ email: c.email, workspace: c.slug, wishedDate: "2030-02-30" }, /^wishedDate: /],
    [{ email: c.email, workspace: c.slug, kind: "sofort" }, /^kind: /],
    [{ confirmationToken: "x.y" }, /^confirmationToken: /],
    [{ confirmationToken: "x.y", email: c.email }, /^confirmationToken: send it alone/],
  ];
  for (const [body, message] of cases) {
    const answer = await step1(body);
    t.is(answer.status, 400, JSON.stringify(body));
    t.regex(answer.body.error ?? "", message, JSON.stringify(body));
  }
  const first = await step1({ email: c.email, workspace: c.slug });
  const [payload, mac] = (first.body.confirmationToken ?? "").split(".");
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? "", "base64url").toString()), workspace: "other" }),
  ).toString("base64url");
  t.is((await step2(`${forged}.${mac}`)).status, 400);
  t.is(stripeCalls(c.subscriptionId).length, 0);

  // A plain HTML form (application/x-www-form-urlencoded) works for both steps.
  const form = await fetch(`${service.httpUrl}/api/kuendigung`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp() },
    body: new URLSearchParams({ email: c.email, workspace: c.slug, kind: "ordinary" }).toString(),
  });
  t.is(form.status, 200);
  const { confirmationToken } = (await form.json()) as { confirmationToken: string };
  const confirm = await fetch(`${service.httpUrl}/api/kuendigung`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp() },
    body: new URLSearchParams({ confirmationToken }).toString(),
  });
  t.is(confirm.status, 200);
  t.is(stripeCalls(c.subscriptionId).length, 2);
});
