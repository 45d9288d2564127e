import test from "ava";
import { revokeApiToken } from "../../core/tenancy/api-tokens.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { type JsonRpcAnswer, parseJsonAnswer, postMcp, rpc, UNTHROTTLED } from "./post-mcp.js";
import { type SwitchableModels, switchableModels } from "./switchable-embedder.js";

// Every error of the spec's "JSON-RPC error codes" (and our documented additions) produced by real
// core failures and seen with plain fetch: code, HTTP status, headers and data (docs/mcp.md "Errors").
// Serial: tests switch the embedder into failing and cut the database.

let service: TestService;
let proxy: TcpProxy;
let models: SwitchableModels;
let tenant: TestTenant;
let readOnlyToken: string;

test.before(async () => {
  proxy = await startTcpProxy("127.0.0.1", 5432);
  models = switchableModels();
  service = await startTestService({
    models,
    mapDatabaseUrl: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(proxy.port);
      return u.toString();
    },
  });
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  readOnlyToken = (await tenant.issueToken(["read"])).token;
});

test.after.always(async () => {
  proxy?.restore();
  await service?.stop();
  await proxy?.close();
});

async function callTool(
  name: string,
  args: Record<string, unknown>,
  token = tenant.token,
): Promise<JsonRpcAnswer & { status: number; headers: Headers }> {
  const request = rpc("tools/call", { name, arguments: args });
  const answer = await postMcp(service.httpUrl, request, { token });
  const body = parseJsonAnswer(answer);
  if (answer.status === 200 || answer.status === 429 || answer.status === 401) {
    if (body.id !== request.id) throw new Error(`answer for id ${String(body.id)}, asked ${request.id}`);
  }
  return { ...body, status: answer.status, headers: answer.headers };
}

async function store(content: string, token = tenant.token): Promise<string> {
  const answer = await callTool("service_store_memory", { content }, token);
  const id = (answer.result?.structuredContent as { memory_id?: string } | undefined)?.memory_id;
  if (!id) throw new Error(`store failed: ${JSON.stringify(answer.error)}`);
  return id;
}

test.serial("-32602: out-of-range arguments, with data.field, in an HTTP 200 answer", async (t) => {
  const answer = await callTool("service_recall", { query: "x", k: 26 });
  t.is(answer.status, 200);
  t.is(answer.error?.code, -32602);
  t.like(answer.error?.data, { reason: "validation", field: "k" });
  t.regex(answer.error?.message ?? "", /k/);
});

test.serial(
  "-32602: arguments core's validation refuses (a malformed uuid) are mapped the same way",
  async (t) => {
    const answer = await callTool("service_link", { from_id: "abc", to_id: "def", rel_type: "REFERENCES" });
    t.is(answer.error?.code, -32602);
    t.is(answer.error?.data?.reason, "validation");
  },
);

test.serial("-32602: a bad as_of", async (t) => {
  const answer = await callTool("service_recall_at_time", { query: "x", as_of: "31.12.2024" });
  t.is(answer.error?.code, -32602);
  t.is(answer.error?.data?.field, "as_of");
});

test.serial("-32002: a token without the write scope", async (t) => {
  const answer = await callTool("service_store_memory", { content: "nope" }, readOnlyToken);
  t.is(answer.status, 200);
  t.is(answer.error?.code, -32002);
  t.regex(answer.error?.message ?? "", /write/);
});

test.serial("-32603 content_required: empty or blank content", async (t) => {
  for (const args of [{}, { content: "" }, { content: " \n\t " }]) {
    const answer = await callTool("service_store_memory", args);
    t.is(answer.error?.code, -32603, JSON.stringify(args));
    t.is(answer.error?.data?.reason, "content_required");
  }
  const update = await callTool("service_update_fact", {
    target_id: await store("A fact to update later"),
    new_title: "t",
    new_content: "",
  });
  t.is(update.error?.code, -32603);
  t.is(update.error?.data?.reason, "content_required");
});

test.serial("-32603 too_large: content over the limits, with the hint to split it", async (t) => {
  const upload = await callTool("service_upload_document", { title: "huge", content: "a ".repeat(500_001) });
  t.is(upload.error?.code, -32603);
  t.is(upload.error?.data?.reason, "too_large");
  t.regex(upload.error?.message ?? "", /split/);
  const memory = await callTool("service_store_memory", { content: "b".repeat(200 * 1024) });
  t.is(memory.error?.code, -32603);
  t.is(memory.error?.data?.reason, "too_large");
});

test.serial("-32603 ingest_failed: the memory service fails while indexing", async (t) => {
  models.mode = "crash";
  try {
    const answer = await callTool("service_store_memory", { content: "This will not be indexed." });
    t.is(answer.error?.code, -32603);
    t.is(answer.error?.data?.reason, "ingest_failed");
    t.regex(answer.error?.message ?? "", /failed/);
    t.false((answer.error?.message ?? "").includes("embedder crashed"), "internals stay in the log");
  } finally {
    models.mode = "ok";
  }
});

test.serial("-32000: the embedding provider fails", async (t) => {
  models.mode = "provider-error";
  try {
    const answer = await callTool("service_upload_document", {
      title: "provider down",
      content: "Text to embed.",
    });
    t.is(answer.error?.code, -32000);
    t.is(answer.error?.data?.reason, "provider_error");
    t.regex(answer.error?.message ?? "", /provider/);
  } finally {
    models.mode = "ok";
  }
});

test.serial(
  "-32003: the memory limit is a plan gate carrying the spec's plan-gate body in data",
  async (t) => {
    const limited = await service.createTenant({
      plan: "free",
      limitsOverride: { ...UNTHROTTLED, memoryLimit: 1 },
    });
    await store("The only memory this plan allows.", limited.token);
    const answer = await callTool("service_store_memory", { content: "One too many." }, limited.token);
    t.is(answer.status, 200);
    t.is(answer.error?.code, -32003);
    const data = answer.error?.data ?? {};
    t.like(data, { error: "plan_upgrade_required", limit: 1, used: 1 });
    t.is(typeof data.feature, "string");
    t.is(typeof data.currentPlan, "string");
    t.true(Array.isArray(data.requiredPlans) && data.requiredPlans.length > 0);
    t.is(typeof data.message, "string");
    t.is(typeof data.upgradeUrl, "string");
  },
);

test.serial("-32004: unknown ids", async (t) => {
  const unknown = "7d2c2a6e-0000-4000-8000-000000000000";
  const relations = await callTool("service_list_relations", { memory_id: unknown });
  t.is(relations.error?.code, -32004);
  t.is(relations.error?.data?.reason, "not_found");
  const link = await callTool("service_link", {
    from_id: await store("Known memory"),
    to_id: unknown,
    rel_type: "REFERENCES",
  });
  t.is(link.error?.code, -32004);
});

test.serial("-32004: another workspace's memory is not found, whatever the tool", async (t) => {
  const other = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  const theirs = await store("A memory of the other workspace.", other.token);
  const mine = await store("A memory of this workspace.");
  for (const [name, args] of [
    ["service_list_relations", { memory_id: theirs }],
    ["service_update_fact", { target_id: theirs, new_title: "taken over", new_content: "overwritten" }],
    ["service_link", { from_id: mine, to_id: theirs, rel_type: "REFERENCES" }],
    ["service_unlink", { from_id: theirs, to_id: mine, rel_type: "REFERENCES" }],
  ] as const) {
    // Spec "HTTP status codes" 404: list_relations/update_fact/link/unlink with unknown ids.
    t.is((await callTool(name, args)).error?.code, -32004, name);
  }
});

test.serial("-32005: updating a version that was already superseded names the current one", async (t) => {
  const old = await store("The meeting room is Ahorn.");
  const first = await callTool("service_update_fact", {
    target_id: old,
    new_title: "Room",
    new_content: "The meeting room is Birke.",
  });
  t.falsy(first.error);
  const again = await callTool("service_update_fact", {
    target_id: old,
    new_title: "Room",
    new_content: "The meeting room is Eiche.",
  });
  t.is(again.error?.code, -32005);
  t.like(again.error?.data, { reason: "superseded", field: "target_id" });
});

test.serial("401: a missing or unknown token, with WWW-Authenticate: Bearer", async (t) => {
  const missing = await postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_health", arguments: {} }),
  );
  t.is(missing.status, 401);
  t.regex(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
  t.is(parseJsonAnswer(missing).error?.code, -32001);
  const unknown = await callTool("service_health", {}, `kmt_${"B".repeat(43)}`);
  t.is(unknown.status, 401);
});

test.serial("401: a token revoked mid-session is refused from the next request on", async (t) => {
  const issued = await tenant.issueToken(["read"], "revoked soon");
  t.is((await postMcp(service.httpUrl, rpc("ping"), { token: issued.token })).status, 200);
  // What DELETE /api/tokens/{id} does in this process: revoke in the database, forget the cached lookup.
  t.is(await revokeApiToken(service.storage.db.sql, tenant.tenantId, issued.id), "revoked");
  service.core.authenticator.forgetToken(issued.id);
  const answer = await postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_recall", arguments: { query: "x" } }),
    {
      token: issued.token,
    },
  );
  t.is(answer.status, 401);
  t.regex(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
});

test.serial("429: the api plan's per-IP MCP limit, with Retry-After; each POST counts once", async (t) => {
  const limited = await service.createTenant({
    plan: "api",
    limitsOverride: { requestsPerMinutePerToken: 100_000, mcpRequestsPerMinutePerIp: 3 },
  });
  // Three POSTs of three kinds (no tool call, a tool call, a notification) use up the three.
  t.is((await postMcp(service.httpUrl, rpc("tools/list"), { token: limited.token })).status, 200);
  t.is((await callTool("service_health", {}, limited.token)).status, 200);
  t.is(
    (
      await postMcp(
        service.httpUrl,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { token: limited.token },
      )
    ).status,
    202,
  );
  const answer = await callTool("service_health", {}, limited.token);
  t.is(answer.status, 429);
  const retryAfter = Number(answer.headers.get("retry-after"));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  t.is(answer.error?.code, -32029);
  t.is(answer.error?.data?.retry_after_seconds, retryAfter);
  const otherToken = (await limited.issueToken(["read"])).token;
  t.is(
    (await postMcp(service.httpUrl, rpc("ping"), { token: otherToken })).status,
    429,
    "the limit is per IP, not per token",
  );
});

test.serial("-32006: service_health while the database is unreachable, then ok again", async (t) => {
  t.is((await callTool("service_health", {})).status, 200);
  proxy.cut();
  try {
    const answer = await waitFor(
      async () => {
        const a = await callTool("service_health", {});
        return a.error ? a : undefined;
      },
      { what: "service_health to fail" },
    );
    t.is(answer.status, 200);
    t.is(answer.error?.code, -32006);
    t.is(answer.error?.data?.reason, "unavailable");
  } finally {
    proxy.restore();
  }
  const healthy = await waitFor(
    async () => {
      const a = await callTool("service_health", {});
      return a.result ? a : undefined;
    },
    { what: "service_health to recover" },
  );
  t.like(healthy.result?.structuredContent, { status: "ok" });
});
