import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { API_TOKEN_PATTERN, hashSecret } from "../../core/auth/token-format.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { cookieHeader, signIn, signInWithWorkspace } from "./sign-in-helper.js";

// API tokens through REST with a real session: plan gate, creation (shown once, stored hashed),
// listing, the 50-token cap, revocation (next request 401, also under concurrency), lastUsedAt.

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

function tokensApi(session: string, init: { method?: string; body?: unknown; path?: string } = {}) {
  return fetch(`${service.httpUrl}/api/tokens${init.path ?? ""}`, {
    method: init.method ?? "GET",
    headers: {
      ...cookieHeader(session),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

async function createToken(
  session: string,
  scopes = ["read"],
  name = "ci",
): Promise<{ id: string; token: string }> {
  const res = await tokensApi(session, { method: "POST", body: { name, scopes } });
  if (res.status !== 200) throw new Error(`POST /api/tokens answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; token: string };
}

const whoAmI = (token: string) =>
  fetch(`${service.httpUrl}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });

test("creating a token needs the api plan: 402 with the plan-gate body", async (t) => {
  const { session } = await signInWithWorkspace(service, "free");
  const res = await tokensApi(session, { method: "POST", body: { name: "x", scopes: ["read"] } });
  t.is(res.status, 402);
  t.deepEqual(await res.json(), {
    error: "plan_upgrade_required",
    feature: "api_tokens",
    currentPlan: "free",
    requiredPlans: ["api"],
    message: "API tokens need the api plan",
    upgradeUrl: "http://localhost:0/dashboard/billing",
  });
});

test("a created token is shown once, stored only as its SHA-256, listed without secret, and works", async (t) => {
  const { session, tenantId, slug } = await signInWithWorkspace(service, "api");
  const created = await createToken(session, ["read", "write"], "laptop");
  t.regex(created.token, API_TOKEN_PATTERN);
  const [row] = await service.storage.db.sql<{ token_hash: Buffer; name: string; scopes: string[] }[]>`
    select token_hash, name, scopes from api_tokens where id = ${created.id}`;
  t.deepEqual(row?.token_hash, hashSecret(created.token));
  t.deepEqual(row?.scopes, ["read", "write"]);
  const dump = await service.storage.db.sql`select * from api_tokens where tenant_id = ${tenantId}`;
  t.false(JSON.stringify(dump).includes(created.token.slice(4)), "the clear token is stored nowhere");

  const list = await tokensApi(session);
  t.is(list.status, 200);
  const tokens = (await list.json()) as Record<string, unknown>[];
  t.deepEqual(Object.keys(tokens[0] ?? {}).sort(), [
    "createdAt",
    "id",
    "kind",
    "lastUsedAt",
    "name",
    "scopes",
  ]);
  t.like(tokens[0], { id: created.id, name: "laptop", scopes: ["read", "write"], lastUsedAt: null });
  t.false(JSON.stringify(tokens).includes(created.token));

  const who = await whoAmI(created.token);
  t.is(who.status, 200);
  t.deepEqual(await who.json(), {
    credential: "token",
    userId: null,
    email: null,
    tenantId,
    tenantSlug: slug,
    plan: "api",
    scopes: ["read", "write"],
    features: ["byok", "audit_export", "webhooks", "api_tokens"],
  });
});

test("token routes are session only: a bearer token gets 401 there", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const { token } = await createToken(session, ["read", "write", "admin"]);
  for (const [method, path] of [
    ["GET", ""],
    ["POST", ""],
  ] as const) {
    const res = await fetch(`${service.httpUrl}/api/tokens${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(method === "POST" ? { body: JSON.stringify({ name: "x", scopes: ["read"] }) } : {}),
    });
    t.is(res.status, 401, `${method} /api/tokens${path}`);
  }
  const noCredentials = await fetch(`${service.httpUrl}/api/tokens`);
  t.is(noCredentials.status, 401);
});

test("a user before onboarding cannot manage tokens (403 naming onboarding)", async (t) => {
  const { session } = await signIn(service);
  const res = await tokensApi(session);
  t.is(res.status, 403);
  t.regex(((await res.json()) as { error: string }).error, /onboarding/);
});

test("bad token requests are 400 naming the field", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const cases: [unknown, RegExp][] = [
    [{ name: "x", scopes: [] }, /^scopes: /],
    [{ name: "x", scopes: ["root"] }, /^scopes/],
    [{ name: "x", scopes: ["read", "read"] }, /^scopes: /],
    [{ name: "", scopes: ["read"] }, /^name: /],
    [{ name: "x".repeat(101), scopes: ["read"] }, /^name: /],
    [{ scopes: ["read"] }, /^name: /],
    [{ name: "x", scopes: ["read"], tenantId: "00000000-0000-0000-0000-000000000000" }, /tenantId/],
  ];
  for (const [body, message] of cases) {
    const res = await tokensApi(session, { method: "POST", body });
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(((await res.json()) as { error: string }).error, message, JSON.stringify(body));
  }
  const badId = await tokensApi(session, { method: "DELETE", path: "/not-a-uuid" });
  t.is(badId.status, 400);
});

test("the 51st active token is refused with 409; revoking one makes room", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) ids.push((await createToken(session, ["read"], `t${i}`)).id);
  const fiftyFirst = await tokensApi(session, {
    method: "POST",
    body: { name: "one too many", scopes: ["read"] },
  });
  t.is(fiftyFirst.status, 409);
  t.regex(((await fiftyFirst.json()) as { error: string }).error, /at most 50 active tokens/);
  t.is(((await (await tokensApi(session)).json()) as unknown[]).length, 50);
  t.is((await tokensApi(session, { method: "DELETE", path: `/${ids[0]}` })).status, 200);
  t.is(
    (await tokensApi(session, { method: "POST", body: { name: "now fits", scopes: ["read"] } })).status,
    200,
  );
});

test("concurrent creations cannot pass the cap together", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  for (let i = 0; i < 45; i++) await createToken(session, ["read"], `c${i}`);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      tokensApi(session, { method: "POST", body: { name: `race${i}`, scopes: ["read"] } }),
    ),
  );
  t.is(answers.filter((r) => r.status === 200).length, 5);
  t.is(answers.filter((r) => r.status === 409).length, 5);
});

test("a revoked token is rejected with 401 on the very next request", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const { id, token } = await createToken(session, ["read"]);
  t.is((await whoAmI(token)).status, 200, "used once, so its lookup is cached");
  const revoked = await tokensApi(session, { method: "DELETE", path: `/${id}` });
  t.is(revoked.status, 200);
  t.deepEqual(await revoked.json(), { id, revoked: true });
  const next = await whoAmI(token);
  t.is(next.status, 401);
  t.regex(next.headers.get("www-authenticate") ?? "", /^Bearer/);
  t.regex(((await next.json()) as { error: string }).error, /invalid or revoked/);
  t.false(((await (await tokensApi(session)).json()) as { id: string }[]).some((x) => x.id === id));
  // Revoking again is idempotent; the audit log has one entry.
  t.is((await tokensApi(session, { method: "DELETE", path: `/${id}` })).status, 200);
  const audits = await service.storage.db.sql`
    select 1 from audit_log where action = 'token.revoked' and target = ${id}`;
  t.is(audits.length, 1);
});

test("concurrent revoke and use: once the revoke answered, no request with the token succeeds", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  for (let round = 0; round < 3; round++) {
    const { id, token } = await createToken(session, ["read"], `round${round}`);
    let revokeAnswered = false;
    const successesAfterRevoke: number[] = [];
    const hammer = (async () => {
      for (let i = 0; i < 60; i++) {
        const sentAfterRevoke = revokeAnswered;
        const res = await whoAmI(token);
        if (sentAfterRevoke && res.status === 200) successesAfterRevoke.push(i);
        if (sentAfterRevoke && res.status !== 401) t.fail(`unexpected ${res.status}`);
      }
    })();
    // Several users of the token in flight while the revoke commits.
    const parallel = Promise.all(Array.from({ length: 8 }, () => whoAmI(token)));
    const revoke = await tokensApi(session, { method: "DELETE", path: `/${id}` });
    revokeAnswered = true;
    t.is(revoke.status, 200);
    await Promise.all([hammer, parallel]);
    t.deepEqual(successesAfterRevoke, [], `round ${round}`);
    t.is((await whoAmI(token)).status, 401);
  }
});

test("another workspace's token cannot be revoked or seen: 404, and it keeps working", async (t) => {
  const mine = await signInWithWorkspace(service, "api");
  const theirs = await signInWithWorkspace(service, "api");
  const theirToken = await createToken(theirs.session, ["read"]);
  const res = await tokensApi(mine.session, { method: "DELETE", path: `/${theirToken.id}` });
  t.is(res.status, 404);
  t.is((await whoAmI(theirToken.token)).status, 200);
  t.false(
    ((await (await tokensApi(mine.session)).json()) as { id: string }[]).some((x) => x.id === theirToken.id),
  );
});

test("lastUsedAt is written on use, then at most once a minute", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const { id, token } = await createToken(session, ["read"]);
  const lastUsed = async () =>
    (
      await service.storage.db.sql<{ last_used_at: Date | null }[]>`
      select last_used_at from api_tokens where id = ${id}`
    )[0]?.last_used_at ?? null;
  t.is(await lastUsed(), null);
  t.is((await whoAmI(token)).status, 200);
  const { waitFor } = await import("../helpers/test-service.js");
  const first = await waitFor(async () => (await lastUsed()) ?? undefined, { what: "last_used_at" });
  for (let i = 0; i < 5; i++) t.is((await whoAmI(token)).status, 200);
  // The write is fire-and-forget: give any (wrong) second write the chance to land, by a round trip
  // through the same pool, then compare.
  await service.storage.db.sql`select 1`;
  t.deepEqual(await lastUsed(), first);
  const listed = ((await (await tokensApi(session)).json()) as { id: string; lastUsedAt: string }[]).find(
    (x) => x.id === id,
  );
  t.is(listed?.lastUsedAt, first.toISOString());
});

test("token creation and revocation are audited without the secret", async (t) => {
  const { session, tenantId } = await signInWithWorkspace(service, "api");
  const { id, token } = await createToken(session, ["read", "admin"], "audited");
  await tokensApi(session, { method: "DELETE", path: `/${id}` });
  const rows = await service.storage.db.sql<{ action: string; target: string; details: unknown }[]>`
    select action, target, details from audit_log
    where tenant_id = ${tenantId} and action like 'token.%' order by id`;
  t.deepEqual(
    [...rows],
    [
      { action: "token.created", target: id, details: { name: "audited", scopes: ["read", "admin"] } },
      { action: "token.revoked", target: id, details: {} },
    ],
  );
  t.false(JSON.stringify(rows).includes(token));
});

test("CreateToken over gRPC with a session works the same (core authenticates every transport)", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const client = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  const created = await client.createToken(
    { name: "grpc", scopes: [1] },
    { headers: { "x-session-token": session } },
  );
  t.regex(created.token, API_TOKEN_PATTERN);
  const withToken = await t.throwsAsync(
    client.createToken({ name: "x", scopes: [1] }, { headers: { authorization: `Bearer ${created.token}` } }),
  );
  t.regex(withToken?.message ?? "", /needs a signed-in session/);
});
