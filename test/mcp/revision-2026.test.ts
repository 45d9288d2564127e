import test from "ava";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import {
  type JsonRpcAnswer,
  parseJsonAnswer,
  postMcp,
  type RawAnswer,
  rpc,
  UNTHROTTLED,
} from "./post-mcp.js";
import { switchableModels } from "./switchable-embedder.js";

// Revision 2026-07-28 on the wire (issue 47, item 1), raw requests: stateless requests carrying
// _meta, server/discover, resultType on every result, cache hints on list results, the
// MCP-Protocol-Version / Mcp-Method / Mcp-Name checks (-32020), -32022 for a version the server does
// not speak — and the 2025 handshake answering beside it on the same endpoint.

let service: TestService;
let tenant: TestTenant;
let readOnly: string;

test.before(async () => {
  service = await startTestService({ models: switchableModels(), worker: false });
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
  readOnly = (await tenant.issueToken(["read"], "read only")).token;
});

test.after.always(async () => {
  await service?.stop();
});

const MODERN = "2026-07-28";
const meta = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "fetch", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** A 2026-07-28 request with the standard headers the body implies, plus any overrides. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { headers?: Record<string, string | undefined>; token?: string; version?: string } = {},
): Promise<RawAnswer> {
  const name = typeof params.name === "string" ? params.name : undefined;
  const headers: Record<string, string> = {};
  const wanted: Record<string, string | undefined> = {
    "mcp-protocol-version": options.version ?? MODERN,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
    ...options.headers,
  };
  for (const [key, value] of Object.entries(wanted)) if (value !== undefined) headers[key] = value;
  return postMcp(service.httpUrl, rpc(method, { ...params, _meta: meta(options.version) }), {
    token: options.token ?? tenant.token,
    headers,
  });
}

function body(answer: RawAnswer): JsonRpcAnswer {
  return parseJsonAnswer(answer);
}

test("server/discover names every revision, the capabilities, instructions, server info and cache hints", async (t) => {
  const answer = await modern("server/discover");
  t.is(answer.status, 200);
  const result = body(answer).result ?? {};
  t.deepEqual(result.supportedVersions, ["2026-07-28", "2025-11-25", "2025-06-18"]);
  t.like(result, {
    resultType: "complete",
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
    cacheScope: "public",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "memory-service", version: "0.0.0-test" } },
  });
  t.true(typeof result.ttlMs === "number" && result.ttlMs > 0);
  t.regex(String(result.instructions), /service_recall/);
  t.is(answer.headers.get("mcp-session-id"), null, "stateless: no session");
});

test("every result carries resultType and server info; list results carry ttlMs and cacheScope, tools/call none", async (t) => {
  for (const [method, params, cacheable] of [
    ["tools/list", {}, true],
    ["prompts/list", {}, true],
    ["prompts/get", { name: "recall_before_answering", arguments: { question: "the budget" } }, false],
    ["tools/call", { name: "service_stats", arguments: {} }, false],
  ] as const) {
    const answer = await modern(method, params);
    t.is(answer.status, 200, method);
    const result = body(answer).result ?? {};
    t.truthy(body(answer).result, `${method}: ${answer.text}`);
    t.is(result.resultType, "complete", method);
    t.like(result._meta, { "io.modelcontextprotocol/serverInfo": { name: "memory-service" } }, method);
    if (cacheable) {
      t.is(result.cacheScope, "public", method);
      t.true(typeof result.ttlMs === "number" && result.ttlMs >= 0, method);
    } else {
      t.false("ttlMs" in result || "cacheScope" in result, method);
    }
  }
});

test("tools/list is deterministic: the same tools in the same order, with icons, for every caller", async (t) => {
  const first = body(await modern("tools/list")).result;
  const second = body(await modern("tools/list", {}, { token: readOnly })).result;
  t.deepEqual(second?.tools, first?.tools);
  const tools = first?.tools as { name: string; icons?: { src: string }[]; annotations?: object }[];
  t.deepEqual(
    tools.map((tool) => tool.name),
    TOOLS.map((tool) => tool.name),
  );
  for (const tool of tools) {
    t.truthy(tool.annotations, tool.name);
    t.regex(tool.icons?.[0]?.src ?? "", /^data:image\/svg\+xml;base64,/, tool.name);
  }
});

test("no initialize needed: the first request may be a tools/call", async (t) => {
  const answer = await modern("tools/call", { name: "service_stats", arguments: {} });
  t.is(answer.status, 200);
  t.like(body(answer).result, { resultType: "complete", structuredContent: { memories: 0 } });
});

test("an unsupported version is HTTP 400 with -32022 listing the supported ones", async (t) => {
  for (const version of ["1900-01-01", "2025-06-18", "2027-01-01"]) {
    const answer = await modern("tools/list", {}, { version });
    t.is(answer.status, 400, version);
    t.like(body(answer).error, {
      code: -32022,
      data: { supported: ["2026-07-28", "2025-11-25", "2025-06-18"], requested: version },
    });
  }
});

test("headers that do not match the body are HTTP 400 with -32020 (HeaderMismatch)", async (t) => {
  const cases: [string, string, Record<string, unknown>, Record<string, string | undefined>][] = [
    ["Mcp-Method differs", "tools/list", {}, { "mcp-method": "prompts/list" }],
    ["Mcp-Method missing", "tools/list", {}, { "mcp-method": undefined }],
    ["MCP-Protocol-Version missing", "tools/list", {}, { "mcp-protocol-version": undefined }],
    ["MCP-Protocol-Version differs", "tools/list", {}, { "mcp-protocol-version": "2025-11-25" }],
    [
      "Mcp-Name differs",
      "tools/call",
      { name: "service_stats", arguments: {} },
      { "mcp-name": "service_erase_memory" },
    ],
    ["Mcp-Name missing", "tools/call", { name: "service_stats", arguments: {} }, { "mcp-name": undefined }],
    [
      "Mcp-Name differs on prompts/get",
      "prompts/get",
      { name: "recall_before_answering", arguments: { question: "x" } },
      { "mcp-name": "save_conversation_facts" },
    ],
  ];
  for (const [what, method, params, headers] of cases) {
    const answer = await modern(method, params, { headers });
    t.is(answer.status, 400, what);
    t.is(body(answer).error?.code, -32020, what);
    t.regex(body(answer).error?.message ?? "", /Header mismatch/, what);
  }
});

test("an Mcp-Name in the Base64 sentinel form is decoded before it is compared", async (t) => {
  const encoded = `=?base64?${Buffer.from("service_stats").toString("base64")}?=`;
  const answer = await modern(
    "tools/call",
    { name: "service_stats", arguments: {} },
    { headers: { "mcp-name": encoded } },
  );
  t.is(answer.status, 200);
  t.is(body(answer).result?.resultType, "complete");
  const wrong = `=?base64?${Buffer.from("service_health").toString("base64")}?=`;
  const mismatch = await modern(
    "tools/call",
    { name: "service_stats", arguments: {} },
    { headers: { "mcp-name": wrong } },
  );
  t.is(body(mismatch).error?.code, -32020);
});

test("a modern request without the required _meta fields is HTTP 400 with -32602", async (t) => {
  // Claims 2026-07-28 by header, no _meta at all.
  const bare = await postMcp(service.httpUrl, rpc("tools/list"), {
    token: tenant.token,
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  });
  t.is(bare.status, 400);
  t.like(body(bare).error, {
    code: -32602,
    data: { field: "_meta.io.modelcontextprotocol/protocolVersion" },
  });
  // The version but no clientCapabilities.
  const noCapabilities = await postMcp(
    service.httpUrl,
    rpc("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } }),
    { token: tenant.token, headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" } },
  );
  t.is(noCapabilities.status, 400);
  t.like(body(noCapabilities).error, { code: -32602 });
});

test("initialize and ping do not exist in 2026-07-28: HTTP 404 with -32601; unknown methods too", async (t) => {
  for (const method of ["initialize", "ping", "resources/list"]) {
    const answer = await modern(method);
    t.is(answer.status, 404, method);
    t.is(body(answer).error?.code, -32601, method);
  }
});

test("errors of a well-formed 2026-07-28 request: 401 stays 401; -32002 is -31002 there", async (t) => {
  const anonymous = await postMcp(service.httpUrl, rpc("tools/list", { _meta: meta() }), {
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  });
  t.is(anonymous.status, 401);
  t.regex(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);
  const refused = await modern(
    "tools/call",
    { name: "service_store_memory", arguments: { content: "not allowed" } },
    { token: readOnly },
  );
  t.is(refused.status, 200);
  t.is(body(refused).error?.code, -31002);
  t.regex(body(refused).error?.message ?? "", /write/);
});

test("the 2025 handshake answers beside it: 2025-11-25 is echoed, a newer ask gets 2025-11-25, an older one 2025-06-18", async (t) => {
  for (const [asked, answered] of [
    ["2025-11-25", "2025-11-25"],
    ["2025-06-18", "2025-06-18"],
    ["2026-07-28", "2025-11-25"],
    ["2024-11-05", "2025-06-18"],
  ] as const) {
    const answer = await postMcp(
      service.httpUrl,
      rpc("initialize", {
        protocolVersion: asked,
        capabilities: {},
        clientInfo: { name: "fetch", version: "1" },
      }),
      { token: tenant.token },
    );
    const result = body(answer).result ?? {};
    t.is(result.protocolVersion, answered, asked);
    t.false("resultType" in result, "2025 results are framed as before");
  }
  const listed = body(
    await postMcp(service.httpUrl, rpc("tools/list"), {
      token: tenant.token,
      headers: { "mcp-protocol-version": "2025-11-25" },
    }),
  ).result;
  t.false("ttlMs" in (listed ?? {}));
  t.truthy((listed?.tools as { icons?: unknown[] }[])[0]?.icons);
  const baseline = body(await postMcp(service.httpUrl, rpc("tools/list"), { token: tenant.token })).result;
  t.is((baseline?.tools as { icons?: unknown[] }[])[0]?.icons, undefined, "2025-06-18 lists no icons");
});
