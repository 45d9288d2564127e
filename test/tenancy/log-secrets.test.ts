import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { MAGIC_LINK_LOG_MESSAGE } from "../../core/tenancy/magic-link-mailer.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import {
  cookieHeader,
  followLink,
  freshEmail,
  freshIp,
  loggedSignInLink,
  requestSignIn,
  sessionCookieOf,
} from "./sign-in-helper.js";

// Every secret the tenancy flows handle — sign-in link tokens, session tokens, API tokens, also
// malformed and revoked ones — against every log line written at debug level. The one documented
// exception: without SMTP_URL the sign-in link is logged (MAGIC_LINK_LOG_MESSAGE), and that line
// carries its own link token and nothing else secret.

let service: TestService;

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

interface LogLine {
  msg?: string;
  signInLink?: string;
}

test("no token or secret appears in any log line, except the documented no-SMTP sign-in link", async (t) => {
  const secrets: string[] = [];
  const linkTokens: string[] = [];
  const json = { "content-type": "application/json" };

  // Sign-in: link (logged on purpose), session cookie, a replay and a forged link.
  const email = freshEmail("logs");
  await requestSignIn(service, email);
  const link = await loggedSignInLink(service, email);
  linkTokens.push(link.searchParams.get("token") ?? "");
  const signedIn = await followLink(link);
  const session = sessionCookieOf(signedIn) ?? "";
  secrets.push(session);
  t.is(signedIn.status, 303);
  t.is((await followLink(link)).status, 401);
  const forgedLink = new URL(link);
  forgedLink.searchParams.set("token", `${"Q".repeat(42)}w`);
  secrets.push(forgedLink.searchParams.get("token") ?? "");
  t.is((await followLink(forgedLink)).status, 401);

  // Onboarding, then tokens on the api plan.
  const onboarded = await fetch(`${service.httpUrl}/api/onboarding`, {
    method: "POST",
    headers: { ...json, ...cookieHeader(session), "x-forwarded-for": freshIp() },
    body: JSON.stringify({ slug: `logs-${process.pid}`, name: "Logs", plan: "free" }),
  });
  const { tenantId } = (await onboarded.json()) as { tenantId: string };
  await service.storage.db.sql`update tenants set plan = 'api' where id = ${tenantId}`;
  const created = await fetch(`${service.httpUrl}/api/tokens`, {
    method: "POST",
    headers: { ...json, ...cookieHeader(session) },
    body: JSON.stringify({ name: "logged?", scopes: ["read", "write"] }),
  });
  const { id, token } = (await created.json()) as { id: string; token: string };
  secrets.push(token);

  // Use it (REST and gRPC), revoke it, use it again; malformed variants; a tampered cookie.
  const bearer = { authorization: `Bearer ${token}` };
  t.is((await fetch(`${service.httpUrl}/api/auth/session`, { headers: bearer })).status, 200);
  const grpc = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  await grpc.getSession({}, { headers: bearer });
  await fetch(`${service.httpUrl}/api/tokens/${id}`, { method: "DELETE", headers: cookieHeader(session) });
  t.is((await fetch(`${service.httpUrl}/api/auth/session`, { headers: bearer })).status, 401);
  await t.throwsAsync(grpc.getSession({}, { headers: bearer }));
  for (const header of [
    `bearer ${token}`,
    `Bearer  ${token}`,
    `Bearer ${token}x`,
    `Bearer ${token.slice(0, -1)}`,
  ]) {
    t.is(
      (await fetch(`${service.httpUrl}/api/auth/session`, { headers: { authorization: header } })).status,
      401,
    );
  }
  const forgedCookie = `${session.slice(0, -2)}zz`;
  secrets.push(forgedCookie);
  t.is(
    (await fetch(`${service.httpUrl}/api/auth/session`, { headers: cookieHeader(forgedCookie) })).status,
    401,
  );
  await fetch(`${service.httpUrl}/api/auth/signout`, { method: "POST", headers: cookieHeader(session) });

  // Compare on the secret part: "kmt_" alone is not a secret.
  const needles = [...secrets, ...linkTokens]
    .map((s) => s.replace(/^kmt_/, ""))
    .filter((s) => s.length >= 20);
  t.true(needles.length >= 5);
  t.true(service.logLines.length > 20, "the flows were logged at debug level");

  let magicLinkLines = 0;
  for (const raw of service.logLines) {
    const line = JSON.parse(raw) as LogLine;
    if (line.msg === MAGIC_LINK_LOG_MESSAGE) {
      magicLinkLines++;
      const own = new URL(line.signInLink ?? "").searchParams.get("token") ?? "";
      for (const needle of needles)
        if (needle !== own) t.false(raw.includes(needle), "only its own link token");
      continue;
    }
    for (const needle of needles) t.false(raw.includes(needle), `secret in log line: ${raw.slice(0, 200)}`);
  }
  t.is(magicLinkLines, 1);
  // The callback's access log line is there, with the link token redacted.
  t.true(
    service.logLines.some((l) => l.includes("/api/auth/callback/email?token=[redacted]")),
    "the access log shows the callback with the token redacted",
  );
});
