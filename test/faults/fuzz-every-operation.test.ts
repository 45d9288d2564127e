import { randomBytes } from "node:crypto";
import test from "ava";
import { paymentEnv, SECRET_KEY } from "../billing/payment-fixtures.js";
import { type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.js";
import { type MailCatcher, startMailCatcher } from "../helpers/mail-catcher.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";

// Issue 45, item 4: no input answers 500. Every operation of /api/openapi.json is called with
// malformed path ids, query values, bodies and content types (bearer token, session cookie, and
// none), and every MCP tool with malformed arguments and envelopes; every answer must be < 500. The
// cases are generated from the document itself, so an operation added later is fuzzed too. The two
// 500s the outside fuzz run found are the first regression cases.

interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly schema?: JsonSchema;
}
interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
  readonly $ref?: string;
}
interface Operation {
  readonly operationId?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}
interface OpenApi {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components?: { schemas?: Record<string, JsonSchema> };
}

const MALFORMED_IDS = [
  "not-a-uuid",
  "00000000-0000-0000-0000-00000000000g",
  "1",
  "-1",
  "1e309",
  "%00",
  "%C3%28",
  "a".repeat(400),
  "..%2F..%2Fetc%2Fpasswd",
  "%F0%9F%99%82",
  "null",
  "00000000-0000-0000-0000-000000000000",
];
const MALFORMED_QUERY_VALUES = ["", "x", "-1", "99999999999999999999", "1.5", "%00", "true", "[]"];
const WRONG_VALUES: readonly unknown[] = [
  null,
  -1,
  1e308,
  "x",
  "",
  "\u0000",
  true,
  [],
  {},
  ["\u0000"],
  "z".repeat(20_000),
];

/** Deterministic choices, so a failing case is the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function resolveSchema(doc: OpenApi, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema?.$ref === undefined) return schema;
  const name = schema.$ref.split("/").pop() ?? "";
  return doc.components?.schemas?.[name];
}

/** Bodies of the operation's own shape with wrong values, plus shapes that are wrong as a whole. */
function malformedBodies(doc: OpenApi, operation: Operation, random: () => number): unknown[] {
  const schema = resolveSchema(doc, operation.requestBody?.content["application/json"]?.schema);
  const bodies: unknown[] = [null, [], "text", 0, {}, { unknown: 1 }, { a: { b: { c: { d: [[[[]]]] } } } }];
  const properties = Object.keys(schema?.properties ?? {});
  for (const property of properties) {
    for (const value of WRONG_VALUES) bodies.push({ [property]: value });
  }
  // All fields at once, each with a randomly chosen wrong value.
  for (let round = 0; round < 6 && properties.length > 0; round++) {
    bodies.push(
      Object.fromEntries(
        properties.map((p) => [p, WRONG_VALUES[Math.floor(random() * WRONG_VALUES.length)]]),
      ),
    );
  }
  return bodies;
}

interface Call {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

function fillPath(template: string, id: string): string {
  return template.replace(/\{[^}]+\}/g, id);
}

/** Every malformed request of one operation (without credentials; the caller adds them). */
function callsOf(doc: OpenApi, template: string, method: string, operation: Operation): Call[] {
  const random = seeded(template.length * 31 + method.length);
  const calls: Call[] = [];
  const verb = method.toUpperCase();
  const hasPathParams = template.includes("{");
  const validId = "0b3f8e5c-7a1d-4c2e-9f00-5d6c7b8a9e01";
  const base = fillPath(template, validId);
  if (hasPathParams) {
    for (const id of MALFORMED_IDS) calls.push({ method: verb, path: fillPath(template, id), headers: {} });
  }
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "query") continue;
    for (const value of MALFORMED_QUERY_VALUES) {
      calls.push({ method: verb, path: `${base}?${parameter.name}=${value}`, headers: {} });
    }
    calls.push({ method: verb, path: `${base}?${parameter.name}=1&${parameter.name}=2`, headers: {} });
  }
  calls.push({ method: verb, path: `${base}?unknownParameter=%00`, headers: {} });
  if (verb === "GET" || verb === "HEAD") return calls;
  const json = { "content-type": "application/json" };
  calls.push({ method: verb, path: base, headers: {} });
  calls.push({ method: verb, path: base, headers: json, body: "" });
  calls.push({ method: verb, path: base, headers: json, body: "{" });
  calls.push({ method: verb, path: base, headers: json, body: '{"a":1,"a":' });
  calls.push({ method: verb, path: base, headers: { "content-type": "text/plain" }, body: "hello" });
  calls.push({
    method: verb,
    path: base,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "a=1&b=%00",
  });
  calls.push({
    method: verb,
    path: base,
    headers: { "content-type": "multipart/form-data; boundary=x" },
    body: "--x\r\ngarbage",
  });
  calls.push({
    method: verb,
    path: base,
    headers: { "content-type": "application/json; charset=latin1" },
    body: "{}",
  });
  calls.push({
    method: verb,
    path: base,
    headers: { "content-type": "application/octet-stream" },
    body: "\u0000\u0001",
  });
  for (const body of malformedBodies(doc, operation, random)) {
    calls.push({ method: verb, path: base, headers: json, body: JSON.stringify(body) });
  }
  if (hasPathParams) {
    calls.push({ method: verb, path: fillPath(template, "not-a-uuid"), headers: json, body: "{}" });
  }
  return calls;
}

/** Operations that end the caller's access or the workspace: fuzzed last, so the rest stay reachable. */
const ENDS_ACCESS = /erase|tenant$|logout|sign-?out|kuendigung|cancel|revoke|sessions/i;

let service: TestService;
let stripe: FakeStripe;
let smtp: MailCatcher;
let tenant: TestTenant;
let cookie: string;

test.before(async () => {
  // Everything configured (payments against the fake Stripe, mail, MASTER_KEY for provider keys and
  // webhooks), so no route answers its documented "not configured" 503 instead of parsing the input.
  // TRUST_PROXY: each request comes "from" an address of its own (X-Forwarded-For), so the per-IP
  // limits of the public routes do not turn the rest of their cases into 429s.
  stripe = await startFakeStripe(SECRET_KEY);
  smtp = await startMailCatcher();
  service = await startTestService({
    env: {
      ...paymentEnv(stripe.url),
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: "Fuzz <fuzz@example.test>",
      MASTER_KEY: randomBytes(32).toString("base64"),
      TRUST_PROXY: "true",
    },
  });
  tenant = await service.createTenant({ plan: "api" });
  cookie = await createSessionCookie(service, tenant.tenantId);
});

test.after.always(async () => {
  await service?.stop();
  await stripe?.close();
  await smtp?.close();
});

let sent = 0;

async function send(
  call: Call,
  credentials: Record<string, string>,
): Promise<{ status: number; text: string }> {
  sent++;
  const client = `198.51.${(sent >> 8) & 255}.${sent & 255}`;
  const res = await fetch(`${service.httpUrl}${call.path}`, {
    method: call.method,
    headers: { ...call.headers, ...credentials, "x-forwarded-for": client },
    ...(call.body === undefined ? {} : { body: call.body }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

test("regressions: a non-uuid provider key id and an import without a body are 400, not 500", async (t) => {
  const credentials = [
    ["/api/keys/not-a-uuid/test", { cookie }],
    ["/api/v1/keys/not-a-uuid/test", { authorization: `Bearer ${tenant.token}` }],
  ] as const;
  for (const [path, credential] of credentials) {
    const res = await send({ method: "POST", path, headers: {} }, credential);
    t.is(res.status, 400, `${path}: ${res.text}`);
    t.regex(res.text, /id/);
  }
  const imported = await send({ method: "POST", path: "/api/tenant/import", headers: {} }, { cookie });
  t.is(imported.status, 400, imported.text);
  t.regex(imported.text, /export bundle is required/);
});

test("every REST operation of the OpenAPI document answers malformed input below 500", async (t) => {
  t.timeout(900_000);
  const doc = (await (await fetch(`${service.httpUrl}/api/openapi.json`)).json()) as OpenApi;
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
  operations.sort((a, b) => Number(ENDS_ACCESS.test(a.path)) - Number(ENDS_ACCESS.test(b.path)));
  t.true(operations.length >= 70, `only ${operations.length} operations in the document`);
  const byStatus = new Map<number, number>();
  const failures: string[] = [];
  const credentials = [{ authorization: `Bearer ${tenant.token}` }, { cookie }, {}];
  for (const { path, method, operation } of operations) {
    for (const call of callsOf(doc, path, method, operation)) {
      for (const credential of credentials) {
        const { status, text } = await send(call, credential);
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        if (status >= 500) {
          failures.push(
            `${call.method} ${call.path} [${call.headers["content-type"] ?? "-"}] ${(call.body ?? "").slice(0, 80)} → ${status} ${text.slice(0, 200)}`,
          );
        }
      }
    }
  }
  t.log(
    `${operations.length} operations; answers by status: ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}`,
  );
  t.deepEqual(failures.slice(0, 20), [], `${failures.length} answers ≥ 500`);
});

interface Tool {
  readonly name: string;
  readonly inputSchema: { properties?: Record<string, JsonSchema> };
}

test("every MCP tool answers malformed arguments and envelopes without an internal error", async (t) => {
  t.timeout(600_000);
  const mcp = async (body: string) => {
    const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, text: await res.text() };
  };
  const listed = await mcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  const tools = (JSON.parse(listed.text) as { result: { tools: Tool[] } }).result.tools;
  t.true(tools.length >= 11);
  const random = seeded(45);
  const failures: string[] = [];
  let calls = 0;
  const check = async (body: string) => {
    calls++;
    const { status, text } = await mcp(body);
    // -32603 is also the spec's code for content_required / too_large / ingest_failed; an internal
    // error is the one with reason "internal".
    if (status >= 500 || /"reason":"internal"/.test(text))
      failures.push(`${body.slice(0, 120)} → ${status} ${text.slice(0, 200)}`);
  };
  const envelopes = [
    "",
    "{",
    "[]",
    "null",
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":{},"method":"tools/call"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":42}}',
    '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2}]',
    '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"\\u0000"}}',
  ];
  for (const envelope of envelopes) await check(envelope);
  for (const tool of tools) {
    const properties = Object.keys(tool.inputSchema.properties ?? {});
    const argumentSets: unknown[] = [undefined, null, [], "x", {}, { unknown: 1 }];
    for (const property of properties) {
      for (const value of [...WRONG_VALUES, ...MALFORMED_IDS]) argumentSets.push({ [property]: value });
    }
    for (let round = 0; round < 8 && properties.length > 0; round++) {
      argumentSets.push(
        Object.fromEntries(
          properties.map((p) => [p, WRONG_VALUES[Math.floor(random() * WRONG_VALUES.length)]]),
        ),
      );
    }
    for (const args of argumentSets) {
      await check(
        JSON.stringify({
          jsonrpc: "2.0",
          id: calls,
          method: "tools/call",
          params: { name: tool.name, ...(args === undefined ? {} : { arguments: args }) },
        }),
      );
    }
  }
  t.log(`${tools.length} tools, ${calls} calls`);
  t.deepEqual(failures.slice(0, 20), [], `${failures.length} internal errors`);
});
