import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc } from "../mcp/post-mcp.js";

// Issue 15, item 6: smaller contract defects of the REST and MCP gateways.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService();
  tenant = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
});

const bearer = () => ({ authorization: `Bearer ${tenant.token}` });
const zeroId = "00000000-0000-4000-8000-000000000000";

test("a DELETE with Content-Type: application/json and no body is handled like one without the header", async (t) => {
  const url = `${service.httpUrl}/api/v1/relations?fromId=${zeroId}&toId=${zeroId}&relType=RELATES_TO`;
  const plain = await fetch(url, { method: "DELETE", headers: bearer() });
  const withHeader = await fetch(url, {
    method: "DELETE",
    headers: { ...bearer(), "content-type": "application/json" },
  });
  t.is(withHeader.status, plain.status);
  const body = (await withHeader.json()) as { error?: string };
  t.deepEqual(body, await plain.json());
  t.notRegex(body.error ?? "", /body/);
});

test("a POST with Content-Type: application/json and no body is still 400 'body is empty'", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { ...bearer(), "content-type": "application/json" },
  });
  t.is(res.status, 400);
  t.regex(((await res.json()) as { error: string }).error, /body is empty/);
});

test("JSON bodies keep prototype-poisoning protection", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { ...bearer(), "content-type": "application/json" },
    body: '{"query":"x","__proto__":{"polluted":true}}',
  });
  t.is(res.status, 400);
});

test("session routes check the credential before the body: Bearer + {} is 401, not 400", async (t) => {
  for (const path of ["/api/onboarding", "/api/checkout", "/api/keys"]) {
    const res = await fetch(`${service.httpUrl}${path}`, {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json" },
      body: "{}",
    });
    t.is(res.status, 401, path);
    t.regex(res.headers.get("www-authenticate") ?? "", /^Bearer/, path);
    t.regex(((await res.json()) as { error: string }).error, /signed-in session/, path);
  }
  const none = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"k": "not a number"}',
  });
  t.is(none.status, 401);
  t.regex(((await none.json()) as { error: string }).error, /^missing credentials/);
});

test("GET /api/v1/memory/recent?k=51 names the bound", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/v1/memory/recent?k=51`, { headers: bearer() });
  t.is(res.status, 400);
  t.is(((await res.json()) as { error: string }).error, "k: must be at most 50");
  const zero = await fetch(`${service.httpUrl}/api/v1/memory/recent?k=0`, { headers: bearer() });
  t.is(((await zero.json()) as { error: string }).error, "k: must be at least 1");
  const word = await fetch(`${service.httpUrl}/api/v1/memory/recent?k=ten`, { headers: bearer() });
  t.is(((await word.json()) as { error: string }).error, "k: must be an integer");
});

test("MCP service_update_fact without new_content is -32602 naming the field", async (t) => {
  const answer = parseJsonAnswer(
    await postMcp(
      service.httpUrl,
      rpc("tools/call", { name: "service_update_fact", arguments: { target_id: zeroId, new_title: "t" } }),
      { token: tenant.token },
    ),
  );
  t.is(answer.error?.code, -32602);
  t.regex(answer.error?.message ?? "", /new_content/);
});

test("MCP 401 asks for a bearer token only (sessions are refused there)", async (t) => {
  const answer = await postMcp(service.httpUrl, rpc("tools/call", { name: "service_health", arguments: {} }));
  t.is(answer.status, 401);
  const message = parseJsonAnswer(answer).error?.message ?? "";
  t.regex(message, /Bearer/);
  t.notRegex(message, /sign in/);
});
