import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { postMcp, rpc, UNTHROTTLED } from "./post-mcp.js";
import { switchableModels } from "./switchable-embedder.js";

// The DNS-rebinding defence of the Streamable HTTP transport (issue 47, item 3): a request whose
// Origin header is present and not allowed is 403 before anything else; the service's own origin
// (PUBLIC_URL) and CORS_ORIGINS are allowed; no Origin (assistants, SDKs, curl) is allowed.

const PUBLIC_URL = "https://memory.example";
const CONFIGURED = "https://app.example";

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({
    models: switchableModels(),
    worker: false,
    env: { PUBLIC_URL, CORS_ORIGINS: `${CONFIGURED},https://other.example` },
  });
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
});

test.after.always(async () => {
  await service?.stop();
});

const listTools = (headers: Record<string, string>) =>
  postMcp(service.httpUrl, rpc("tools/list"), { token: tenant.token, headers });

test("a foreign Origin is 403 with a JSON-RPC error and no id, on every method of the endpoint", async (t) => {
  for (const origin of ["https://evil.example", "http://memory.example", "null", "http://127.0.0.1:8080"]) {
    const answer = await listTools({ origin });
    t.is(answer.status, 403, origin);
    const body = JSON.parse(answer.text) as { id: unknown; error: { code: number; message: string } };
    t.is(body.id, null);
    t.is(body.error.code, -32600);
    t.regex(body.error.message, /not allowed/);
  }
  for (const method of ["GET", "DELETE"]) {
    const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
      method,
      headers: { origin: "https://evil.example" },
    });
    t.is(res.status, 403, method);
  }
  // Even without a token: the refusal comes before authentication.
  const anonymous = await postMcp(service.httpUrl, rpc("tools/list"), {
    headers: { origin: "https://evil.example" },
  });
  t.is(anonymous.status, 403);
});

test("the service's own origin, a configured origin and no Origin at all are served", async (t) => {
  for (const headers of [{ origin: PUBLIC_URL }, { origin: CONFIGURED }, {}]) {
    const answer = await listTools(headers);
    t.is(answer.status, 200, JSON.stringify(headers));
    t.truthy((JSON.parse(answer.text) as { result?: unknown }).result);
  }
});

test("the protected-resource metadata stays public for any origin (CORS *)", async (t) => {
  const res = await fetch(`${service.httpUrl}/.well-known/oauth-protected-resource/api/mcp/v1`, {
    headers: { origin: "https://evil.example" },
  });
  t.is(res.status, 200);
  t.like(await res.json(), { resource: `${PUBLIC_URL}/api/mcp/v1` });
});

test("CORS: a configured origin's preflight is allowed and the answer exposes the MCP headers a page must read", async (t) => {
  const preflight = await fetch(`${service.httpUrl}/api/mcp/v1`, {
    method: "OPTIONS",
    headers: {
      origin: CONFIGURED,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-session-id",
    },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get("access-control-allow-origin"), CONFIGURED);
  t.regex(preflight.headers.get("access-control-allow-headers") ?? "", /mcp-session-id/);
  // Every answer of the endpoint carries them, the 401 challenge among them.
  for (const token of [tenant.token, undefined]) {
    const answer = await postMcp(service.httpUrl, rpc("tools/list"), {
      token,
      headers: { origin: CONFIGURED },
    });
    t.is(answer.status, token ? 200 : 401);
    t.is(answer.headers.get("access-control-allow-origin"), CONFIGURED);
    const exposed = (answer.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/,\s*/);
    for (const name of ["mcp-session-id", "www-authenticate", "retry-after"])
      t.true(exposed.includes(name), name);
  }
});
