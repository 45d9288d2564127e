import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION } from "../../core/plans/plans.js";
import { RetryInfoSchema } from "../../gen/memory/v1/errors_pb.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { csrfTokenFor } from "../../lib/csrf-token.js";
import { CLIENT_IP_HEADER, GATEWAY_HEADER, MCP_GATEWAY } from "../../lib/gateway-metadata.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import {
  cookieHeader,
  freshEmail,
  freshIp,
  requestSignIn,
  signInWithWorkspace,
} from "../tenancy/sign-in-helper.js";

// The spec's rate-limit table (memory store): per IP at the edge for sign-in (sliding) and
// onboarding, per credential by plan and MCP per IP in core, 429 with Retry-After in whole seconds,
// /health never limited. A service with TRUST_PROXY lets each test use its own client address.

let service: TestService;
/** TRUST_PROXY off: X-Forwarded-For must not pick the bucket. */
let untrusting: TestService;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { TRUST_PROXY: "true" },
  });
  untrusting = await startTestService({ models: testModels(), worker: false, env: { TRUST_PROXY: "false" } });
});

test.after.always(async () => {
  await service?.stop();
  await untrusting?.stop();
});

function grpcClient(target: TestService = service) {
  return createClient(TenancyService, createGrpcTransport({ baseUrl: target.grpcUrl }));
}

/** Calls GetSession `n` times with `headers`; returns how many succeeded before the first 429. */
async function callsUntilLimited(
  headers: Record<string, string>,
  n: number,
): Promise<{ ok: number; error?: ConnectError }> {
  const client = grpcClient();
  for (let i = 0; i < n; i++) {
    try {
      await client.getSession({}, { headers });
    } catch (error) {
      return { ok: i, error: ConnectError.from(error) };
    }
  }
  return { ok: n };
}

function assertRetryAfter(
  t: { true(v: boolean, m?: string): void; regex(s: string, r: RegExp): void },
  value: string | null,
) {
  t.regex(value ?? "", /^\d+$/);
  const seconds = Number(value);
  t.true(seconds >= 1 && seconds <= 60, `Retry-After ${value} within the 60 s window`);
}

test("sign-in: 5 per 60 s per IP; the 6th is 429 with Retry-After; another IP is not affected", async (t) => {
  const ip = freshIp();
  for (let i = 0; i < 5; i++)
    t.is((await requestSignIn(service, freshEmail("rl"), { ip })).status, 200, `#${i + 1}`);
  const sixth = await requestSignIn(service, freshEmail("rl"), { ip });
  t.is(sixth.status, 429);
  assertRetryAfter(t, sixth.headers.get("retry-after"));
  t.regex(((await sixth.json()) as { error: string }).error, /too many requests/);
  t.is((await requestSignIn(service, freshEmail("rl"), { ip: freshIp() })).status, 200);
});

test("the whole /api/auth/signin/* family shares one budget per IP", async (t) => {
  const ip = freshIp();
  for (let i = 0; i < 3; i++) t.is((await requestSignIn(service, freshEmail("fam"), { ip })).status, 200);
  for (const provider of ["github", "google"]) {
    const res = await fetch(`${service.httpUrl}/api/auth/signin/${provider}`, {
      method: "POST",
      headers: { "x-forwarded-for": ip },
    });
    t.is(res.status, 404);
  }
  t.is((await requestSignIn(service, freshEmail("fam"), { ip })).status, 429);
  const other = await fetch(`${service.httpUrl}/api/auth/signin/github`, {
    method: "POST",
    headers: { "x-forwarded-for": ip },
  });
  t.is(other.status, 429);
});

test("without TRUST_PROXY, X-Forwarded-For does not choose the bucket (the socket address does)", async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${untrusting.httpUrl}/api/auth/signin/email`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
      body: JSON.stringify({ email: freshEmail("xff") }),
    });
    statuses.push(res.status);
  }
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
});

test("/health is never limited", async (t) => {
  const statuses = await Promise.all(
    Array.from({ length: 150 }, () => fetch(`${service.httpUrl}/health`).then((r) => r.status)),
  );
  t.true(statuses.every((s) => s === 200));
});

test("per token per minute by plan: free 30, pro 60, team 120, api 120", async (t) => {
  for (const [plan, limit] of [
    ["free", 30],
    ["pro", 60],
    ["team", 120],
    ["api", 120],
  ] as const) {
    // An empty override keeps the plan's own limits (test tenants default to a high override).
    const tenant = await service.createTenant({ plan, limitsOverride: {}, scopes: ["read"] });
    const result = await callsUntilLimited({ authorization: `Bearer ${tenant.token}` }, limit + 5);
    t.is(result.ok, limit, plan);
    t.is(result.error?.code, Code.ResourceExhausted, plan);
    const [retry] = result.error?.findDetails(RetryInfoSchema) ?? [];
    t.true((retry?.retryAfterSeconds ?? 0) >= 1 && (retry?.retryAfterSeconds ?? 0) <= 60, plan);
  }
});

test("an Enterprise override (600 per minute) replaces the plan's limit", async (t) => {
  const tenant = await service.createTenant({
    plan: "api",
    limitsOverride: { requestsPerMinutePerToken: 600 },
  });
  const headers = { authorization: `Bearer ${tenant.token}` };
  let ok = 0;
  for (let i = 0; i < 600; i++) {
    await service.clients.tenancy.getSession({}, { headers });
    ok++;
  }
  t.is(ok, 600);
  await t.throwsAsync(service.clients.tenancy.getSession({}, { headers }), {
    message: /rate limit exceeded/,
  });
});

test("each token has its own budget; REST answers 429 with Retry-After", async (t) => {
  const tenant = await service.createTenant({ plan: "free", limitsOverride: {} });
  const first = await callsUntilLimited({ authorization: `Bearer ${tenant.token}` }, 40);
  t.is(first.ok, 30);
  const rest = await fetch(`${service.httpUrl}/api/auth/session`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  t.is(rest.status, 429);
  assertRetryAfter(t, rest.headers.get("retry-after"));
  t.regex(((await rest.json()) as { error: string }).error, /rate limit exceeded; retry in \d+ s/);
  const second = await tenant.issueToken(["read"]);
  t.is((await callsUntilLimited({ authorization: `Bearer ${second.token}` }, 5)).ok, 5);
});

test("a session counts like a token: 30 per minute on the free plan", async (t) => {
  const { session } = await signInWithWorkspace(service, "free");
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    statuses.push(
      (await fetch(`${service.httpUrl}/api/auth/session`, { headers: cookieHeader(session) })).status,
    );
  }
  // The onboarding call before did not count: a session without a workspace has no plan yet.
  t.is(statuses.filter((s) => s === 200).length, 30);
  t.is(statuses.at(-1), 429);
});

/** `n` sequential GET /api/auth/session with `headers`; the statuses in order. */
async function sessionStatuses(headers: Record<string, string>, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    statuses.push((await fetch(`${service.httpUrl}/api/auth/session`, { headers })).status);
  }
  return statuses;
}

test("the dashboard's calls (session + its own X-CSRF-Token) have their own 300 per minute, apart from the plan's 30", async (t) => {
  t.is(DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION, 300);
  const { session } = await signInWithWorkspace(service, "free");
  const dashboard = { ...cookieHeader(session), "x-csrf-token": csrfTokenFor(session) };
  const statuses = await sessionStatuses(dashboard, 301);
  t.is(statuses.filter((s) => s === 200).length, 300, "300 dashboard calls pass on the free plan");
  t.is(statuses.at(-1), 429, "the 301st within the minute is refused: still limited against abuse");
  // The plan's budget of the same session was not touched by the dashboard's calls.
  const plain = await sessionStatuses(cookieHeader(session), 31);
  t.is(plain.filter((s) => s === 200).length, 30);
  t.is(plain.at(-1), 429);
});

test("the session cookie without the token, or with another session's or a made-up token, keeps the plan's limit", async (t) => {
  const { session } = await signInWithWorkspace(service, "free");
  const other = await signInWithWorkspace(service, "free");
  // Another session's token first: it counts against this session's plan budget (30).
  const foreign = await sessionStatuses(
    { ...cookieHeader(session), "x-csrf-token": csrfTokenFor(other.session) },
    10,
  );
  t.true(foreign.every((s) => s === 200));
  const forged = await sessionStatuses({ ...cookieHeader(session), "x-csrf-token": "A".repeat(43) }, 21);
  t.deepEqual(forged.slice(0, 20), Array(20).fill(200));
  t.is(forged.at(-1), 429, "10 + 20 plan calls used up the free plan's 30");
  // The dashboard's budget of the session is still whole.
  const dashboard = await sessionStatuses(
    { ...cookieHeader(session), "x-csrf-token": csrfTokenFor(session) },
    5,
  );
  t.deepEqual(dashboard, [200, 200, 200, 200, 200]);
});

test("a bearer token never gets the dashboard's budget, even with a session's X-CSRF-Token", async (t) => {
  const tenant = await service.createTenant({ plan: "free", limitsOverride: {} });
  const { session } = await signInWithWorkspace(service, "free");
  const result = await callsUntilLimited(
    { authorization: `Bearer ${tenant.token}`, "x-csrf-token": csrfTokenFor(session) },
    40,
  );
  t.is(result.ok, 30);
});

test("MCP on the api plan: 60 per 60 s per client IP across tokens, only for calls the MCP gateway marks", async (t) => {
  const tenant = await service.createTenant({ plan: "api" });
  const other = await tenant.issueToken(["read"]);
  const ip = "203.0.113.7";
  const mcp = { [GATEWAY_HEADER]: MCP_GATEWAY, [CLIENT_IP_HEADER]: ip };
  const first = await callsUntilLimited({ ...mcp, authorization: `Bearer ${tenant.token}` }, 50);
  t.is(first.ok, 50);
  const second = await callsUntilLimited({ ...mcp, authorization: `Bearer ${other.token}` }, 20);
  t.is(second.ok, 10, "the IP's budget is shared by every token");
  t.is(second.error?.code, Code.ResourceExhausted);
  // Same tokens, other IP, or not through the MCP gateway: not this limit.
  t.is(
    (
      await callsUntilLimited(
        { ...mcp, [CLIENT_IP_HEADER]: "203.0.113.8", authorization: `Bearer ${other.token}` },
        5,
      )
    ).ok,
    5,
  );
  t.is(
    (await callsUntilLimited({ [CLIENT_IP_HEADER]: ip, authorization: `Bearer ${other.token}` }, 5)).ok,
    5,
  );
});

test("plans without an MCP per-IP limit are not limited per IP", async (t) => {
  const tenant = await service.createTenant({ plan: "team" });
  const mcp = { [GATEWAY_HEADER]: MCP_GATEWAY, [CLIENT_IP_HEADER]: "203.0.113.9" };
  t.is((await callsUntilLimited({ ...mcp, authorization: `Bearer ${tenant.token}` }, 80)).ok, 80);
});

test("POST /api/mcp/v1 on the api plan: the 61st request from one IP within 60 s is 429 with Retry-After", async (t) => {
  const tenant = await service.createTenant({ plan: "api" });
  const ip = freshIp();
  const post = (from: string) =>
    fetch(`${service.httpUrl}/api/mcp/v1`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-forwarded-for": from,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
  const statuses: number[] = [];
  for (let i = 0; i < 60; i++) statuses.push((await post(ip)).status);
  t.true(
    statuses.every((s) => s === 200),
    JSON.stringify(statuses),
  );
  const limited = await post(ip);
  t.is(limited.status, 429);
  assertRetryAfter(t, limited.headers.get("retry-after"));
  t.is((await post(freshIp())).status, 200, "another address has its own budget");
});
