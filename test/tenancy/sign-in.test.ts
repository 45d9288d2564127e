import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { hashSecret } from "../../core/auth/token-format.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { testModels } from "../graph/graph-test-kit.js";
import { type MailCatcher, type ReceivedMail, startMailCatcher } from "../helpers/mail-catcher.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import {
  cookieHeader,
  followLink,
  freshEmail,
  freshIp,
  loggedSignInLink,
  requestSignIn,
  sessionCookieOf,
  signIn,
} from "./sign-in-helper.js";

// Magic-link sign-in end to end: a real SMTP peer (smtp-server) receives the mail, the test follows
// the link with fetch, and the session cookie it gets works until sign-out.

let smtp: MailCatcher;
let mails: ReceivedMail[];
let service: TestService;
/** PUBLIC_URL https, links written to the log: for the cookie's Secure flag. */
let httpsService: TestService;

test.before(async () => {
  smtp = await startMailCatcher();
  mails = smtp.mails;
  const port = smtp.port;
  service = await startTestService({
    models: testModels(),
    worker: false,
    env: {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      TRUST_PROXY: "true",
      MAIL_FROM: "Memory <auth@example.test>",
    },
  });
  httpsService = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { PUBLIC_URL: "https://memory.example.test", TRUST_PROXY: "true" },
  });
});

test.after.always(async () => {
  await service?.stop();
  await httpsService?.stop();
  await smtp?.close();
});

/** Waits for the mail to `email` and returns its link, pointed at the service's real address. */
async function mailedLink(email: string): Promise<URL> {
  const mail = await waitFor(() => mails.find((m) => m.to.includes(email)), { what: `mail to ${email}` });
  const match = /https?:\/\/\S+\/api\/auth\/callback\/email\?token=[A-Za-z0-9_-]+/.exec(mail.body);
  if (!match) throw new Error(`no sign-in link in the mail: ${mail.body}`);
  const link = new URL(match[0]);
  const real = new URL(service.httpUrl);
  link.protocol = real.protocol;
  link.host = real.host;
  return link;
}

async function signInBySmtp(email = freshEmail()): Promise<{ email: string; link: URL; res: Response }> {
  const started = await requestSignIn(service, email);
  if (started.status !== 200) throw new Error(`sign-in answered ${started.status}`);
  const link = await mailedLink(email);
  return { email, link, res: await followLink(link) };
}

function session(token: string): Promise<Response> {
  return fetch(`${service.httpUrl}/api/auth/session`, { headers: cookieHeader(token) });
}

test("a sign-in mail arrives over SMTP and its link signs a new user in, on to onboarding", async (t) => {
  const email = freshEmail("smtp");
  const started = await requestSignIn(service, email);
  t.is(started.status, 200);
  t.deepEqual(await started.json(), { sent: true, expiresInHours: 24 });
  const mail = await waitFor(() => mails.find((m) => m.to.includes(email)), { what: "the mail" });
  t.regex(mail.body, /^From: Memory <auth@example\.test>/m);
  t.regex(mail.body, /expires in 24 hours/);

  const link = await mailedLink(email);
  t.is(link.pathname, "/api/auth/callback/email");
  const res = await followLink(link);
  t.is(res.status, 303);
  t.is(res.headers.get("location"), "http://localhost:0/onboarding");
  t.like(await res.json(), { needsOnboarding: true });

  const [cookie] = res.headers.getSetCookie();
  t.regex(cookie ?? "", /^service\.session-token=[A-Za-z0-9_-]{43};/);
  t.regex(cookie ?? "", /; HttpOnly/i);
  t.regex(cookie ?? "", /; SameSite=Lax/i);
  t.regex(cookie ?? "", /; Path=\//);
  t.notRegex(cookie ?? "", /; Secure/i, "no Secure flag while PUBLIC_URL is http");
  const expires = Date.parse(/Expires=([^;]+)/.exec(cookie ?? "")?.[1] ?? "");
  t.true(Math.abs(expires - (Date.now() + 30 * 24 * 3600 * 1000)) < 60_000, "session lasts 30 days");

  const token = sessionCookieOf(res) ?? "";
  const who = await session(token);
  t.is(who.status, 200);
  t.deepEqual(await who.json(), {
    credential: "session",
    userId: ((await (await session(token)).json()) as { userId: string }).userId,
    email,
    tenantId: null,
    tenantSlug: null,
    plan: null,
    scopes: [],
    features: [],
  });
});

test("a sign-in link works once: following it again is 401", async (t) => {
  const { link, res } = await signInBySmtp();
  t.is(res.status, 303);
  const replay = await followLink(link);
  t.is(replay.status, 401);
  t.regex(((await replay.json()) as { error: string }).error, /invalid, expired or already used/);
  t.is(sessionCookieOf(replay), undefined);
});

test("a replayed link raced against itself yields exactly one session", async (t) => {
  const email = freshEmail("race");
  await requestSignIn(service, email);
  const link = await mailedLink(email);
  const answers = await Promise.all(Array.from({ length: 6 }, () => followLink(link)));
  t.deepEqual(answers.map((r) => r.status).sort(), [303, 401, 401, 401, 401, 401]);
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from sessions s join users u on u.id = s.user_id where u.email = ${email}`;
  t.is(row?.n, 1);
});

test("an expired link is refused with 401, even unused", async (t) => {
  const email = freshEmail("expired");
  await requestSignIn(service, email);
  const link = await mailedLink(email);
  const token = link.searchParams.get("token") ?? "";
  const [row] = await service.storage.db.sql<{ hours: number }[]>`
    select round(extract(epoch from expires_at - created_at) / 3600)::int as hours
    from magic_links where token_hash = ${hashSecret(token)}`;
  t.is(row?.hours, 24, "links are valid 24 hours");
  await service.storage.db.sql`
    update magic_links set expires_at = now() - interval '1 second' where token_hash = ${hashSecret(token)}`;
  t.is((await followLink(link)).status, 401);
});

test("unknown and malformed link tokens are refused without a session", async (t) => {
  const base = `${service.httpUrl}/api/auth/callback/email`;
  for (const token of ["A".repeat(43), "A".repeat(42), "A".repeat(44), `${"A".repeat(42)}!`, "x"]) {
    const res = await fetch(`${base}?token=${encodeURIComponent(token)}`, { redirect: "manual" });
    t.is(res.status, 401, token);
    t.is(sessionCookieOf(res), undefined);
  }
  const missing = await fetch(base, { redirect: "manual" });
  t.is(missing.status, 400);
  t.regex(((await missing.json()) as { error: string }).error, /token/);
});

test("a known and an unknown address get the same answer and a mail each", async (t) => {
  const known = (await signInBySmtp()).email;
  const unknown = freshEmail("unknown");
  const a = await requestSignIn(service, known);
  const b = await requestSignIn(service, unknown);
  t.is(a.status, b.status);
  t.deepEqual(await a.json(), await b.json());
  await mailedLink(unknown);
  await waitFor(() => (mails.filter((m) => m.to.includes(known)).length === 2 ? true : undefined), {
    what: "the second mail to the known address",
  });
  t.pass();
});

test("a tampered session cookie is rejected with 401", async (t) => {
  const { res } = await signInBySmtp();
  const token = sessionCookieOf(res) ?? "";
  t.is((await session(token)).status, 200);
  const last = token.at(-1) === "A" ? "B" : "A";
  for (const forged of [
    `${token.slice(0, -1)}${last}`,
    token.slice(0, -1),
    `${token}A`,
    token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
    "A".repeat(43),
    `${token}%3Badmin%3D1`,
    "%E0%A4%A",
  ]) {
    const forgedRes = await fetch(`${service.httpUrl}/api/auth/session`, {
      headers: { cookie: `service.session-token=${forged}` },
    });
    t.is(forgedRes.status, 401, forged);
  }
});

test("sign-out revokes the session, clears the cookie, and the old cookie is 401 afterwards", async (t) => {
  const { res } = await signInBySmtp();
  const token = sessionCookieOf(res) ?? "";
  const out = await fetch(`${service.httpUrl}/api/auth/signout`, {
    method: "POST",
    headers: cookieHeader(token),
  });
  t.is(out.status, 200);
  t.deepEqual(await out.json(), { signedOut: true });
  const [cleared] = out.headers.getSetCookie();
  t.regex(cleared ?? "", /^service\.session-token=;/);
  t.regex(cleared ?? "", /Expires=Thu, 01 Jan 1970/);
  t.is((await session(token)).status, 401);
  const again = await fetch(`${service.httpUrl}/api/auth/signout`, {
    method: "POST",
    headers: cookieHeader(token),
  });
  t.is(again.status, 401);
});

test("sign-in and sign-out are written to the audit log with the client address", async (t) => {
  const ip = freshIp();
  const email = freshEmail("audit");
  await fetch(`${service.httpUrl}/api/auth/signin/email`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify({ email }),
  });
  const res = await fetch(await mailedLink(email), {
    redirect: "manual",
    headers: { "x-forwarded-for": ip },
  });
  const token = sessionCookieOf(res) ?? "";
  await fetch(`${service.httpUrl}/api/auth/signout`, {
    method: "POST",
    headers: { ...cookieHeader(token), "x-forwarded-for": ip },
  });
  const rows = await service.storage.db.sql<
    { action: string; ip: string; details: Record<string, string> }[]
  >`
    select a.action, host(a.ip) as ip, a.details from audit_log a join users u on u.id = a.actor_user_id
    where u.email = ${email} order by a.id`;
  t.deepEqual(
    rows.map((r) => [r.action, r.ip]),
    [
      ["auth.sign_in", ip],
      ["auth.sign_out", ip],
    ],
  );
  t.false(JSON.stringify(rows).includes(token), "no secret in the audit log");
});

test("callbackPath must stay on this host", async (t) => {
  for (const callbackPath of ["//evil.example", "/\\evil.example", "https://evil.example/", "evil"]) {
    const res = await requestSignIn(service, freshEmail("redirect"), { callbackPath });
    t.is(res.status, 400, callbackPath);
    t.regex(((await res.json()) as { error: string }).error, /^callbackPath: /, callbackPath);
  }
  t.is(
    (await requestSignIn(service, freshEmail("redirect"), { callbackPath: "/dashboard/tokens" })).status,
    200,
  );
});

test("a member's sign-in link leads to the requested callback path", async (t) => {
  const { session: first, email } = await signIn(httpsService);
  const onboard = await fetch(`${httpsService.httpUrl}/api/onboarding`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...cookieHeader(first) },
    body: JSON.stringify({ slug: `cb-${process.pid}-${Date.now()}`, name: "Callback", plan: "free" }),
  });
  t.is(onboard.status, 200);
  const before = httpsService.logLines.length;
  await requestSignIn(httpsService, email, { callbackPath: "/dashboard/tokens" });
  const res = await followLink(await loggedSignInLink(httpsService, email, before));
  t.is(res.status, 303);
  t.is(res.headers.get("location"), "https://memory.example.test/dashboard/tokens");
  t.like(await res.json(), { needsOnboarding: false });
});

test("the session cookie is Secure when PUBLIC_URL is https", async (t) => {
  const { res } = await signIn(httpsService);
  t.is(res.headers.get("location"), "https://memory.example.test/onboarding");
  t.regex(res.headers.getSetCookie()[0] ?? "", /; Secure/i);
});

test("unknown sign-in providers are 404 naming the supported one; bad bodies are 400 naming the field", async (t) => {
  const github = await fetch(`${service.httpUrl}/api/auth/signin/github`, {
    method: "POST",
    headers: { "x-forwarded-for": freshIp() },
  });
  t.is(github.status, 404);
  t.regex(((await github.json()) as { error: string }).error, /'github' is not supported.*signin\/email/);

  const badEmail = await requestSignIn(service, "not an address");
  t.is(badEmail.status, 400);
  t.regex(((await badEmail.json()) as { error: string }).error, /^email: /);

  const extra = await fetch(`${service.httpUrl}/api/auth/signin/email`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
    body: JSON.stringify({ email: freshEmail(), tenantId: "x" }),
  });
  t.is(extra.status, 400);
});

test("StartSignIn over gRPC refuses a base_url other than PUBLIC_URL (no links to foreign hosts)", async (t) => {
  const client = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  const error = await t.throwsAsync(
    client.startSignIn({ email: freshEmail("phish"), baseUrl: "https://evil.example" }),
  );
  t.regex(error?.message ?? "", /base_url: must be this service's public URL/);
  await t.notThrowsAsync(client.startSignIn({ email: freshEmail("grpc"), baseUrl: "http://localhost:0" }));
});
