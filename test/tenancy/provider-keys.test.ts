import { randomBytes } from "node:crypto";
import test from "ava";
import { openKey, parseMasterKey } from "../../core/keys/key-cipher.js";
import { rotateMasterKey } from "../../core/keys/rotate-master-key.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startFakeServer } from "../helpers/fake-http-server.js";
import { type FakeProviders, startFakeProviders } from "../helpers/fake-providers.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc } from "../mcp/post-mcp.js";
import { createSessionCookie } from "../rest/sessions.js";

// BYOK end to end through REST with real sessions and tokens against local fake providers: plan
// gate, sealed storage, masked listing, round-trip test, selection → re-embed into the new space
// (recall switches only when complete), ingest and recall through the tenant's provider, provider
// failure → 502 and a failed memory, and the clear key nowhere in logs, audit or export.

let service: TestService;
let fake: FakeProviders;
const MASTER_KEY = randomBytes(32).toString("base64");

test.before(async () => {
  fake = await startFakeProviders();
  service = await startTestService({
    models: testModels(),
    captureLogs: true,
    env: { MASTER_KEY, PROVIDER_ALLOW_PRIVATE_URLS: "true" },
  });
});

test.after.always(async () => {
  await service?.stop();
  await fake?.close();
});

async function workspace(plan: "free" | "plus" | "pro") {
  const tenant = await service.createTenant({ plan });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.httpUrl}/api${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> & unknown[] };
  };
  const bearer = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.httpUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  return { tenant, call, bearer };
}

test.serial("free plan: POST /api/keys is 402 with the plan-gate body", async (t) => {
  const { call } = await workspace("free");
  const res = await call("POST", "/keys", { provider: "openai", apiKey: fake.validKey });
  t.is(res.status, 402);
  t.like(res.json, { error: "plan_upgrade_required", feature: "byok", currentPlan: "free" });
  t.deepEqual((res.json as { requiredPlans?: unknown }).requiredPlans, ["plus", "pro", "team", "api"]);
});

test.serial("a stored key is sealed, listed masked, and passes a real round trip", async (t) => {
  const { tenant, call } = await workspace("plus");
  const created = await call("POST", "/keys", {
    provider: "openai",
    apiKey: fake.validKey,
    label: "prod",
    baseUrl: `${fake.url}/openai/v1`,
  });
  t.is(created.status, 200);
  t.like(created.json, {
    provider: "openai",
    label: "prod",
    maskedKey: "…cdef",
    model: "text-embedding-3-small",
  });
  t.false(JSON.stringify(created.json).includes(fake.validKey));
  const id = String(created.json.id);

  const [row] = await service.storage.db.sql<{ ciphertext: Buffer; nonce: Buffer; auth_tag: Buffer }[]>`
    select ciphertext, nonce, auth_tag from provider_keys where id = ${id}`;
  t.is(row?.nonce.length, 12);
  t.is(row?.auth_tag.length, 16);
  t.false(row?.ciphertext.toString("latin1").includes("CLEARKEY"));

  const listed = await call("GET", "/keys");
  t.is(listed.status, 200);
  t.is(listed.json.length, 1);
  t.false(JSON.stringify(listed.json).includes(fake.validKey));

  fake.requests.length = 0;
  const tested = await call("POST", `/keys/${id}/test`);
  t.is(tested.status, 200);
  t.like(tested.json, { ok: true, dimension: 1024, model: "text-embedding-3-small" });
  t.is(fake.requests[0]?.headers.authorization, `Bearer ${fake.validKey}`);
  const after = await call("GET", "/keys");
  t.like((after.json as unknown as Record<string, unknown>[])[0], { lastTestOk: true, dimension: 1024 });
  t.truthy((after.json as unknown as Record<string, unknown>[])[0]?.lastTestedAt);

  // Another tenant's id is not found; the sealed row only opens for its tenant (AAD).
  const other = await workspace("plus");
  t.is((await other.call("POST", `/keys/${id}/test`)).status, 404);
  t.is((await other.call("DELETE", `/keys/${id}`)).status, 404);
  t.truthy(tenant.tenantId);
});

test.serial("a wrong key fails its test with the provider's words and without the key", async (t) => {
  const { call } = await workspace("plus");
  const wrong = "sk-wrong-NOTVALID-zyxwvutsrqp";
  const created = await call("POST", "/keys", {
    provider: "jina",
    apiKey: wrong,
    baseUrl: `${fake.url}/jina/v1`,
  });
  const tested = await call("POST", `/keys/${created.json.id}/test`);
  t.is(tested.status, 200);
  t.is(tested.json.ok, false);
  t.regex(String(tested.json.error), /401.*Provided API key is invalid/);
  t.false(JSON.stringify(tested.json).includes("NOTVALID"));
});

test.serial("with PROVIDER_ALLOW_PRIVATE_URLS the key test still does not follow a redirect", async (t) => {
  const { call } = await workspace("plus");
  const created = await call("POST", "/keys", {
    provider: "openai",
    apiKey: fake.validKey,
    baseUrl: `${fake.url}/openai/v1`,
  });
  t.is(created.status, 200);
  const elsewhere = await startFakeServer(() => ({ json: { data: [] } }));
  try {
    fake.requests.length = 0;
    fake.failNext({ status: 302, headers: { location: `${elsewhere.url}/openai/v1/embeddings` }, text: "" });
    const tested = await call("POST", `/keys/${created.json.id}/test`);
    t.is(tested.status, 200);
    t.is(tested.json.ok, false);
    t.regex(String(tested.json.error), /HTTP 302: a redirect, not followed/);
    t.is(fake.requests.length, 1, "one request, not retried");
    t.is(elsewhere.requests.length, 0, "the redirect's target saw nothing");
  } finally {
    await elsewhere.close();
  }
});

test.serial(
  "without PROVIDER_ALLOW_PRIVATE_URLS a private or http base URL is refused with 400 naming it",
  async (t) => {
    const strict = await startTestService({ models: testModels(), worker: false, env: { MASTER_KEY } });
    try {
      const tenant = await strict.createTenant({ plan: "plus" });
      const cookie = await createSessionCookie(strict, tenant.tenantId);
      const create = async (baseUrl: string) => {
        const res = await fetch(`${strict.httpUrl}/api/keys`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ provider: "openai-compatible", apiKey: fake.validKey, baseUrl, model: "m" }),
        });
        return { status: res.status, error: String(((await res.json()) as { error?: unknown }).error) };
      };
      const port = new URL(fake.url).port;
      t.deepEqual(await create(`https://[::ffff:7f00:1]:${port}/v1`), {
        status: 400,
        error: "baseUrl: ::ffff:7f00:1 is IPv4-mapped 127.0.0.1 (loopback)",
      });
      t.deepEqual(await create(`https://2130706433:${port}/v1`), {
        status: 400,
        error: "baseUrl: 127.0.0.1 is loopback",
      });
      t.deepEqual(await create(`https://[fd00::1]/v1`), {
        status: 400,
        error: "baseUrl: fd00::1 is unique-local",
      });
      t.deepEqual(await create(`${fake.url}/v1`), { status: 400, error: "baseUrl: must use https" });
      const named = await create(`https://localhost:${port}/v1`);
      t.is(named.status, 400);
      t.regex(named.error, /^baseUrl: localhost resolves to (127\.0\.0\.1|::1), which is loopback$/);
      const listed = await fetch(`${strict.httpUrl}/api/keys`, { headers: { cookie } });
      t.deepEqual(await listed.json(), []);
    } finally {
      await strict.stop();
    }
  },
);

test.serial("admin-scope tokens manage keys under /api/v1/keys; read-only tokens are refused", async (t) => {
  const { tenant, bearer } = await workspace("pro");
  const created = await bearer("POST", "/keys", {
    provider: "mistral",
    apiKey: fake.validKey,
    baseUrl: `${fake.url}/mistral/v1`,
  });
  t.is(created.status, 200);
  const readOnly = await tenant.issueToken(["read"]);
  const res = await fetch(`${service.httpUrl}/api/v1/keys`, {
    headers: { authorization: `Bearer ${readOnly.token}` },
  });
  t.is(res.status, 403);
  const deleted = await bearer("DELETE", `/keys/${created.json.id}`);
  t.is(deleted.status, 200);
});

test.serial(
  "bad inputs: unknown provider, missing base URL for openai-compatible, unknown id → 4xx",
  async (t) => {
    const { call } = await workspace("plus");
    t.is((await call("POST", "/keys", { provider: "acme", apiKey: fake.validKey })).status, 400);
    const noBase = await call("POST", "/keys", {
      provider: "openai-compatible",
      apiKey: fake.validKey,
      model: "m",
    });
    t.is(noBase.status, 400);
    t.regex(String(noBase.json.error ?? noBase.json.message), /baseUrl/);
    t.is((await call("POST", "/keys/00000000-0000-4000-8000-000000000000/test")).status, 404);
    t.is(
      (await call("PUT", "/keys/selection", { embeddingKeyId: "00000000-0000-4000-8000-000000000000" }))
        .status,
      404,
    );
  },
);

test.serial(
  "choosing a key re-embeds into its space; recall switches when complete; ingest and recall use it",
  async (t) => {
    const { tenant, call, bearer } = await workspace("plus");
    const before = await call("GET", "/keys/selection");
    const defaultSpace = String(before.json.activeEmbeddingSpace);
    for (const i of [1, 2, 3]) {
      const stored = await bearer("POST", "/memory/entries", {
        memory_type: "semantic",
        title: `Fact ${i}`,
        content: `Tenant fact number ${i} about cohere embeddings.`,
      });
      t.is(stored.status, 201, JSON.stringify(stored.json));
    }
    const created = await call("POST", "/keys", {
      provider: "cohere",
      apiKey: fake.validKey,
      baseUrl: fake.url,
    });
    const keyId = String(created.json.id);
    // Not tested yet: cannot embed.
    t.is((await call("PUT", "/keys/selection", { embeddingKeyId: keyId })).status, 409);
    t.is((await call("POST", `/keys/${keyId}/test`)).json.ok, true);

    fake.requests.length = 0;
    const chosen = await call("PUT", "/keys/selection", { embeddingKeyId: keyId, rerankKeyId: keyId });
    t.is(chosen.status, 200, JSON.stringify(chosen.json));
    t.is(chosen.json.embeddingKeyId, keyId);
    t.like(chosen.json.reembed as object, { targetSpace: "cohere:embed-v4.0:1024", total: 3 });

    const done = await waitFor(
      async () => {
        const s = await call("GET", "/keys/selection");
        return s.json.reembed === null ? s.json : undefined;
      },
      { what: "re-embed into the cohere space", timeoutMs: 30_000 },
    );
    t.is(done.activeEmbeddingSpace, "cohere:embed-v4.0:1024");
    t.not(done.activeEmbeddingSpace, defaultSpace);
    const passages = fake.to("/v2/embed").flatMap((r) => (r.body as { texts: string[] }).texts);
    t.is(passages.filter((p) => p.includes("Tenant fact number")).length, 3);
    t.true(
      fake.to("/v2/embed").every((r) => (r.body as { input_type: string }).input_type === "search_document"),
    );
    const spaces = await service.storage.db.sql<{ embedding_space: string }[]>`
    select distinct embedding_space from memories where tenant_id = ${tenant.tenantId}`;
    t.deepEqual(
      spaces.map((s) => s.embedding_space),
      ["cohere:embed-v4.0:1024"],
    );

    // Recall embeds the query as a search_query and reranks through Cohere.
    fake.requests.length = 0;
    const recalled = await bearer("POST", "/memory/recall", { query: "fact number 2", k: 3 });
    t.is(recalled.status, 200);
    t.true(
      fake.to("/v2/embed").some((r) => (r.body as { input_type: string }).input_type === "search_query"),
    );
    t.is(fake.to("/v2/rerank").length, 1);

    // A provider failure: 502 naming the provider, and the memory is kept as failed.
    fake.failNext({ status: 401, json: { id: "e", message: "invalid api token" } });
    const failed = await bearer("POST", "/memory/entries", {
      memory_type: "semantic",
      title: "Will fail",
      content: "This one meets a revoked key.",
    });
    t.is(failed.status, 502);
    t.regex(String(failed.json.error), /cohere/);
    const [row] = await service.storage.db.sql<{ status: string }[]>`
    select status from memories where tenant_id = ${tenant.tenantId} and title = 'Will fail'`;
    t.is(row?.status, "failed");

    // A key in use cannot be deleted; back to the service's models, then it can.
    t.is((await call("DELETE", `/keys/${keyId}`)).status, 409);
    const reset = await call("PUT", "/keys/selection", { embeddingKeyId: null, rerankKeyId: null });
    t.is(reset.status, 200);
    await waitFor(
      async () => {
        const s = await call("GET", "/keys/selection");
        return s.json.reembed === null && s.json.activeEmbeddingSpace === defaultSpace ? true : undefined;
      },
      { what: "back to the default space", timeoutMs: 30_000 },
    );
    t.is((await call("DELETE", `/keys/${keyId}`)).status, 200);
  },
);

test.serial(
  "MCP: a workspace provider's failure is -32000 naming the provider, on store and on recall",
  async (t) => {
    const { tenant, call } = await workspace("plus");
    const created = await call("POST", "/keys", {
      provider: "voyage",
      apiKey: fake.validKey,
      baseUrl: `${fake.url}/voyage/v1`,
    });
    const keyId = String(created.json.id);
    t.is((await call("POST", `/keys/${keyId}/test`)).json.ok, true);
    t.is((await call("PUT", "/keys/selection", { embeddingKeyId: keyId })).status, 200);
    await waitFor(
      async () => {
        const s = await call("GET", "/keys/selection");
        return s.json.reembed === null && s.json.activeEmbeddingSpace === "voyage:voyage-3.5:1024"
          ? true
          : undefined;
      },
      { what: "the empty workspace switched to voyage", timeoutMs: 30_000 },
    );
    const tool = async (name: string, args: Record<string, unknown>) =>
      parseJsonAnswer(
        await postMcp(service.httpUrl, rpc("tools/call", { name, arguments: args }), { token: tenant.token }),
      );

    const stored = await tool("service_store_memory", { content: "Voyage embeds this one." });
    t.is(stored.error, undefined, JSON.stringify(stored.error));
    t.is(fake.to("/voyage/v1/embeddings").at(-1)?.headers.authorization, `Bearer ${fake.validKey}`);

    // Voyage's own 401 body; not retried (only 429/5xx are).
    const revoked = { status: 401, json: { detail: "Provided API key is invalid." } };
    fake.failNext(revoked);
    const failedStore = await tool("service_store_memory", { content: "This one meets a revoked key." });
    t.is(failedStore.error?.code, -32000);
    t.is(failedStore.error?.data?.reason, "provider_error");
    t.regex(failedStore.error?.message ?? "", /voyage.*401.*Provided API key is invalid/);
    t.false(JSON.stringify(failedStore).includes(fake.validKey));
    const [row] = await service.storage.db.sql<{ status: string }[]>`
    select status from memories where tenant_id = ${tenant.tenantId}
      and content = 'This one meets a revoked key.'`;
    t.is(row?.status, "failed");

    fake.failNext(revoked);
    const failedRecall = await tool("service_recall", { query: "voyage" });
    t.is(failedRecall.error?.code, -32000);
    t.regex(failedRecall.error?.message ?? "", /voyage/);
  },
);

test.after("the clear key never appears in logs, audit entries or the tenant export", async (t) => {
  const logs = service.logLines.join("\n");
  t.true(logs.length > 0);
  t.false(logs.includes(fake.validKey));
  t.false(logs.includes("CLEARKEY"));
  const audit = await service.storage.db.sql<{ details: unknown }[]>`select details, target from audit_log`;
  t.false(JSON.stringify(audit).includes("CLEARKEY"));
});

test.serial("rotation re-seals every key under a new master key; the keys still work", async (t) => {
  const { call } = await workspace("plus");
  const created = await call("POST", "/keys", {
    provider: "mistral",
    apiKey: fake.validKey,
    baseUrl: `${fake.url}/mistral/v1`,
  });
  const from = parseMasterKey(MASTER_KEY);
  const to = parseMasterKey(randomBytes(32).toString("base64"));
  const first = await rotateMasterKey(service.storage.db.sql, from, to);
  t.true(first.rotated >= 1);
  const again = await rotateMasterKey(service.storage.db.sql, from, to);
  t.is(again.rotated, 0, "a second run has nothing left to do");
  const [row] = await service.storage.db.sql<
    { tenant_id: string; ciphertext: Buffer; nonce: Buffer; auth_tag: Buffer }[]
  >`
    select tenant_id, ciphertext, nonce, auth_tag from provider_keys where id = ${String(created.json.id)}`;
  if (!row) throw new Error("row missing");
  const sealed = { ciphertext: row.ciphertext, nonce: row.nonce, authTag: row.auth_tag };
  t.is(openKey(to, row.tenant_id, sealed), fake.validKey);
  t.throws(() => openKey(from, row.tenant_id, sealed));
  // The tenant id is the associated data: another tenant's id does not open it.
  t.throws(() => openKey(to, "00000000-0000-4000-8000-000000000000", sealed));
  // Put everything back under the service's key for the remaining tests.
  await rotateMasterKey(service.storage.db.sql, to, from);
});

test.serial("without MASTER_KEY, POST /api/keys is 503 naming the setting", async (t) => {
  const bare = await startTestService({ models: testModels(), worker: false });
  try {
    const tenant = await bare.createTenant({ plan: "plus" });
    const cookie = await createSessionCookie(bare, tenant.tenantId);
    const res = await fetch(`${bare.httpUrl}/api/keys`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ provider: "openai", apiKey: "sk-some-key-123456789" }),
    });
    t.is(res.status, 503);
    t.regex(JSON.stringify(await res.json()), /MASTER_KEY/);
  } finally {
    await bare.stop();
  }
});
