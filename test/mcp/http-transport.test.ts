import test from "ava";
import fc from "fast-check";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import {
  type JsonRpcAnswer,
  parseJsonAnswer,
  parseSseEvents,
  postMcp,
  rpc,
  UNTHROTTLED,
} from "./post-mcp.js";
import { switchableModels } from "./switchable-embedder.js";

// The wire format of POST/GET/DELETE /api/mcp/v1 seen with plain fetch (spec "MCP endpoint";
// MCP 2025-06-18 Streamable HTTP transport): JSON by default, SSE on request, and each malformed
// request answered with a clear JSON-RPC error instead of a crash or a hang.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({ models: switchableModels(), worker: false });
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
});

test.after.always(async () => {
  await service?.stop();
});

const initialize = () =>
  rpc("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "fetch", version: "1" },
  });

test("GET /api/mcp/v1 is public discovery metadata naming version, protocol, endpoint, auth and tools", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/mcp/v1`);
  t.is(res.status, 200);
  t.regex(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  t.like(body, {
    name: "memory-service",
    version: "0.0.0-test",
    protocol_version: "2025-06-18",
    protocol_versions: ["2026-07-28", "2025-11-25", "2025-06-18"],
    endpoint: "/api/mcp/v1",
    transport: "streamable-http",
    authentication: { scheme: "Bearer", header: "Authorization" },
  });
  t.deepEqual(
    body.tools,
    TOOLS.map((tool) => tool.name),
  );
  t.true((body.tools as string[]).includes("service_recall"));
  t.true((body.prompts as string[]).length >= 3);
});

test("GET asking for an event stream is 405: the server opens no server-initiated stream", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
    headers: { accept: "text/event-stream", authorization: `Bearer ${tenant.token}` },
  });
  t.is(res.status, 405);
  t.regex(res.headers.get("allow") ?? "", /POST/);
});

test("DELETE is 405: the server is stateless and has no session to end", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${tenant.token}`, "mcp-session-id": "abc" },
  });
  t.is(res.status, 405);
  t.is(((await res.json()) as JsonRpcAnswer).error?.code, -32600);
});

test("initialize answers one JSON object with protocol 2025-06-18, server info and capabilities", async (t) => {
  const request = initialize();
  const answer = await postMcp(service.httpUrl, request, { token: tenant.token });
  t.is(answer.status, 200);
  t.regex(answer.headers.get("content-type") ?? "", /^application\/json/);
  t.is(answer.headers.get("mcp-session-id"), null, "stateless: no session id is issued");
  const body = parseJsonAnswer(answer);
  t.is(body.jsonrpc, "2.0");
  t.is(body.id, request.id);
  t.like(body.result, {
    protocolVersion: "2025-06-18",
    serverInfo: { name: "memory-service", version: "0.0.0-test" },
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
  });
  t.truthy(body.result?.instructions);
});

test("a client asking for an older protocol is answered with 2025-06-18", async (t) => {
  const answer = await postMcp(
    service.httpUrl,
    rpc("initialize", {
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "old", version: "1" },
    }),
    { token: tenant.token },
  );
  t.is(parseJsonAnswer(answer).result?.protocolVersion, "2025-06-18");
});

test("with Accept: text/event-stream the same answer arrives as one SSE message event", async (t) => {
  const json = parseJsonAnswer(await postMcp(service.httpUrl, rpc("tools/list"), { token: tenant.token }));
  const request = rpc("tools/list");
  const answer = await postMcp(service.httpUrl, request, {
    token: tenant.token,
    accept: "text/event-stream",
  });
  t.is(answer.status, 200);
  t.regex(answer.headers.get("content-type") ?? "", /^text\/event-stream/);
  t.is(answer.headers.get("content-encoding"), null, "event streams are not compressed");
  const events = parseSseEvents(answer.text);
  t.is(events.length, 1);
  t.is(events[0]?.event, "message");
  const message = JSON.parse(events[0]?.data ?? "") as JsonRpcAnswer;
  t.is(message.id, request.id);
  t.deepEqual(message.result, json.result);
});

test("in SSE mode an error answer is an SSE message event too", async (t) => {
  const answer = await postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_recall", arguments: { query: "" } }),
    { token: tenant.token, accept: "text/event-stream" },
  );
  t.is(answer.status, 200);
  const [event] = parseSseEvents(answer.text);
  t.is((JSON.parse(event?.data ?? "") as JsonRpcAnswer).error?.code, -32602);
});

test("notifications and client responses are 202 with no body", async (t) => {
  for (const message of [
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    { jsonrpc: "2.0", method: "notifications/something-unknown" },
    { jsonrpc: "2.0", id: 99, result: {} },
  ]) {
    const answer = await postMcp(service.httpUrl, message, { token: tenant.token });
    t.is(answer.status, 202, JSON.stringify(message));
    t.is(answer.text, "");
  }
});

test("a notification without a token is 401", async (t) => {
  const answer = await postMcp(service.httpUrl, { jsonrpc: "2.0", method: "notifications/initialized" });
  t.is(answer.status, 401);
  t.regex(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
});

test("ping answers an empty result", async (t) => {
  t.deepEqual(
    parseJsonAnswer(await postMcp(service.httpUrl, rpc("ping"), { token: tenant.token })).result,
    {},
  );
});

test("string and null ids are echoed", async (t) => {
  const byString = await postMcp(
    service.httpUrl,
    { jsonrpc: "2.0", id: "req-1", method: "ping" },
    { token: tenant.token },
  );
  t.is(parseJsonAnswer(byString).id, "req-1");
  const byNull = await postMcp(
    service.httpUrl,
    { jsonrpc: "2.0", id: null, method: "ping" },
    { token: tenant.token },
  );
  t.like(parseJsonAnswer(byNull), { id: null, result: {} });
});

test("an unknown method is -32601", async (t) => {
  const request = rpc("resources/list");
  const answer = await postMcp(service.httpUrl, request, { token: tenant.token });
  t.is(answer.status, 200);
  t.like(parseJsonAnswer(answer), { id: request.id, error: { code: -32601 } });
});

test("params that are not an object are -32602", async (t) => {
  for (const request of [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: [1, 2] },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: "service_health" },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "service_health", arguments: [] } },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "prompts/get",
      params: { name: "recall_before_answering", arguments: { question: 1 } },
    },
  ]) {
    const answer = await postMcp(service.httpUrl, request, { token: tenant.token });
    t.is(answer.status, 200);
    t.like(parseJsonAnswer(answer), { id: request.id, error: { code: -32602 } }, JSON.stringify(request));
  }
});

test("malformed JSON is HTTP 400 with -32700 and id null", async (t) => {
  const answer = await postMcp(service.httpUrl, '{"jsonrpc":"2.0","id":1,"method":', { token: tenant.token });
  t.is(answer.status, 400);
  t.like(parseJsonAnswer(answer), { id: null, error: { code: -32700 } });
});

test("a batch array is HTTP 400 with -32600 naming the 2025-06-18 removal", async (t) => {
  const answer = await postMcp(service.httpUrl, [rpc("ping"), rpc("ping")], { token: tenant.token });
  t.is(answer.status, 400);
  const body = parseJsonAnswer(answer);
  t.is(body.error?.code, -32600);
  t.regex(body.error?.message ?? "", /batch/);
});

test("a request without jsonrpc 2.0 or method is HTTP 400 with -32600", async (t) => {
  for (const message of [
    { id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 1 },
    { jsonrpc: "2.0", id: [1], method: "ping" },
  ]) {
    const answer = await postMcp(service.httpUrl, message, { token: tenant.token });
    t.is(answer.status, 400);
    t.is(parseJsonAnswer(answer).error?.code, -32600);
  }
});

test("a wrong or missing content type is HTTP 415 with -32600", async (t) => {
  const plain = await postMcp(service.httpUrl, rpc("ping"), {
    token: tenant.token,
    contentType: "text/plain",
  });
  t.is(plain.status, 415);
  t.is(parseJsonAnswer(plain).error?.code, -32600);
  const form = await postMcp(service.httpUrl, "a=b", {
    token: tenant.token,
    contentType: "application/x-www-form-urlencoded",
  });
  t.is(form.status, 415);
  const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}` },
    body: new Blob([JSON.stringify(rpc("ping"))]),
  });
  t.is(res.status, 415);
  const withCharset = await postMcp(service.httpUrl, rpc("ping"), {
    token: tenant.token,
    contentType: "application/json; charset=utf-8",
  });
  t.is(withCharset.status, 200);
});

test("an Accept header allowing neither JSON nor SSE is HTTP 406", async (t) => {
  const answer = await postMcp(service.httpUrl, rpc("ping"), { token: tenant.token, accept: "text/html" });
  t.is(answer.status, 406);
  t.is(parseJsonAnswer(answer).error?.code, -32600);
});

test("an unsupported MCP-Protocol-Version header is HTTP 400; the negotiated one is accepted", async (t) => {
  const old = await postMcp(service.httpUrl, rpc("ping"), {
    token: tenant.token,
    headers: { "mcp-protocol-version": "2024-11-05" },
  });
  t.is(old.status, 400);
  t.regex(parseJsonAnswer(old).error?.message ?? "", /2025-06-18/);
  const current = await postMcp(service.httpUrl, rpc("ping"), {
    token: tenant.token,
    headers: { "mcp-protocol-version": "2025-06-18" },
  });
  t.is(current.status, 200);
});

test("an Mcp-Session-Id the server never issued is ignored (stateless server)", async (t) => {
  const answer = await postMcp(service.httpUrl, rpc("ping"), {
    token: tenant.token,
    headers: { "mcp-session-id": "0b6f4c0e-1111-4c4c-9f9f-000000000000" },
  });
  t.is(answer.status, 200);
});

test("a body over 8 MiB is HTTP 413 with -32600, and the server keeps answering", async (t) => {
  const huge = JSON.stringify(
    rpc("tools/call", { name: "service_store_memory", arguments: { content: "x".repeat(9 * 1024 * 1024) } }),
  );
  const answer = await postMcp(service.httpUrl, huge, { token: tenant.token });
  t.is(answer.status, 413);
  t.is(parseJsonAnswer(answer).error?.code, -32600);
  t.is((await postMcp(service.httpUrl, rpc("ping"), { token: tenant.token })).status, 200);
});

test("without a token every method is HTTP 401 with WWW-Authenticate: Bearer and -32001", async (t) => {
  for (const request of [
    initialize(),
    rpc("tools/list"),
    rpc("tools/call", { name: "service_recall", arguments: { query: "x" } }),
  ]) {
    const answer = await postMcp(service.httpUrl, request);
    t.is(answer.status, 401, request.method);
    t.regex(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
    t.like(parseJsonAnswer(answer), { id: request.id, error: { code: -32001 } });
  }
});

test("a malformed or unknown token is 401, also when the arguments are invalid too", async (t) => {
  const unknown = `kmt_${"A".repeat(43)}`;
  for (const token of ["not-a-token", unknown]) {
    const answer = await postMcp(service.httpUrl, rpc("tools/list"), { token });
    t.is(answer.status, 401, token);
  }
  const invalidToo = await postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_recall", arguments: { k: 99 } }),
    {
      token: unknown,
    },
  );
  t.is(invalidToo.status, 401, "401 comes before -32602");
  const unknownTool = await postMcp(service.httpUrl, rpc("tools/call", { name: "nope" }), { token: unknown });
  t.is(unknownTool.status, 401, "401 comes before unknown tool");
  const unknownMethod = await postMcp(service.httpUrl, rpc("nope"), { token: unknown });
  t.is(unknownMethod.status, 401, "401 comes before -32601");
});

test("arbitrary bodies get a JSON-RPC answer or 202, never a crash or a hang", async (t) => {
  const bodies = fc.sample(
    fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            jsonrpc: fc.constantFrom("2.0", "1.0", 2),
            id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
            method: fc.oneof(
              fc.constantFrom("tools/call", "prompts/get", "initialize", "tools/list"),
              fc.string(),
            ),
            params: fc.oneof(fc.jsonValue(), fc.record({ name: fc.string(), arguments: fc.jsonValue() })),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    ),
    { numRuns: 150, seed: 8 },
  );
  for (const body of bodies) {
    const answer = await postMcp(service.httpUrl, body, { token: tenant.token });
    if (answer.status === 202) {
      t.is(answer.text, "", body);
      continue;
    }
    t.true([200, 400].includes(answer.status), `${answer.status} for ${body}`);
    const parsed = parseJsonAnswer(answer);
    t.is(parsed.jsonrpc, "2.0");
    t.true(parsed.result !== undefined || typeof parsed.error?.code === "number", body);
  }
});
