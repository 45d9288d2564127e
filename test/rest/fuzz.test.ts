import test from "ava";
import fc from "fast-check";
import { BEARER, HAPPY_CORE, type StubEdge, startStubEdge } from "./stub-edge.js";

// Fuzzing the REST gateway (STYLE "Tests"): malformed JSON, wrong types, unknown fields, odd content
// types, bytes that are not text, hostile query strings and path parameters. Whatever arrives, the
// answer is a success or a clear 4xx with the generic error body, never a 5xx.

const ID = "0b3f8e5c-7a1d-4c2e-9f00-5d6c7b8a9e01";
const COOKIE = `service.session-token=${"s".repeat(43)}`;

/** Every route with a body, and a valid body to mutate. */
const BODY_ROUTES: readonly { url: string; valid: Record<string, unknown> }[] = [
  { url: "/api/memory/recall", valid: { query: "Kündigung", k: 5, hops: 2 } },
  {
    url: "/api/documents",
    valid: { title: "Doc", content: "Text", source: "https://x.test", metadata: { a: 1 } },
  },
  {
    url: "/api/v1/memory/entries",
    valid: { memory_type: "semantic", title: "T", content: "C", tags: ["a"] },
  },
  { url: "/api/v1/relations", valid: { fromId: ID, toId: ID, relType: "REFERENCES" } },
  { url: `/api/v1/memory/${ID}/versions`, valid: { newTitle: "T2", newContent: "C2", updateReason: "why" } },
  { url: "/api/keys", valid: { provider: "openai", label: "l", apiKey: "sk-12345678" } },
  { url: "/api/checkout", valid: { plan: "pro", billing: "monthly" } },
  { url: "/api/kuendigung", valid: { email: "a@example.test", reason: "r" } },
  { url: "/api/tokens", valid: { name: "ci", scopes: ["read"] } },
  { url: "/api/onboarding", valid: { slug: "acme", name: "Acme", plan: "free" } },
  { url: "/api/auth/signin/email", valid: { email: "a@example.test" } },
];

let edge: StubEdge;

test.before(async () => {
  edge = await startStubEdge(HAPPY_CORE);
});

test.after.always(async () => {
  await edge?.app.close();
});

async function send(
  method: "POST" | "GET" | "DELETE",
  url: string,
  payload: string | Buffer | undefined,
  contentType: string | undefined,
) {
  const res = await edge.app.inject({
    method,
    url,
    headers: { ...BEARER, cookie: COOKIE, ...(contentType ? { "content-type": contentType } : {}) },
    ...(payload === undefined ? {} : { payload }),
  });
  return res;
}

/** The property every fuzzed answer must have. */
function assertClear(status: number, body: string, label: string): void {
  if (status >= 500) throw new Error(`${label} answered ${status}: ${body.slice(0, 200)}`);
  if (status >= 400) {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error !== "string" || parsed.error.length === 0) {
      throw new Error(`${label} answered ${status} without an error message: ${body.slice(0, 200)}`);
    }
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });

/** A valid body with one field replaced, removed, or an unknown field added. */
function mutated(valid: Record<string, unknown>) {
  const keys = Object.keys(valid);
  return fc.oneof(
    fc
      .record({ key: fc.constantFrom(...keys), value: jsonValue })
      .map(({ key, value }) => ({ ...valid, [key]: value })),
    fc.constantFrom(...keys).map((key) => {
      const { [key]: _dropped, ...rest } = valid;
      return rest;
    }),
    fc
      .record({ key: fc.string({ minLength: 1, maxLength: 12 }), value: jsonValue })
      .map(({ key, value }) => ({
        ...valid,
        [key]: value,
      })),
  );
}

for (const route of BODY_ROUTES) {
  test(`POST ${route.url}: mutated JSON bodies get a success or a clear 4xx`, async (t) => {
    await fc.assert(
      fc.asyncProperty(mutated(route.valid), async (body) => {
        const res = await send("POST", route.url, JSON.stringify(body), "application/json");
        assertClear(res.statusCode, res.body, `${route.url} ${JSON.stringify(body)}`);
      }),
      { numRuns: 100 },
    );
    t.pass();
  });

  test(`POST ${route.url}: arbitrary text, bytes and content types never cause a 5xx`, async (t) => {
    const payload = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 4 }),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.constantFrom(
        "{",
        "[",
        '{"a":',
        "\u0000",
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{}}}',
      ),
    );
    const contentType = fc.constantFrom(
      undefined,
      "application/json",
      "application/json; charset=utf-8",
      "application/JSON",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=zz",
      "application/octet-stream",
      ";;;",
    );
    await fc.assert(
      fc.asyncProperty(payload, contentType, async (body, type) => {
        const res = await send("POST", route.url, body, type);
        assertClear(res.statusCode, res.body, `${route.url} ${type} ${String(body).slice(0, 80)}`);
      }),
      { numRuns: 100 },
    );
    t.pass();
  });
}

test("query strings and path parameters: hostile values get a success or a clear 4xx", async (t) => {
  const value = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.integer().map(String),
    fc.double().map(String),
    fc.constantFrom("", "%", "%zz", "%00", "../../etc", ID, "0", "51", "-1", "1e3"),
  );
  await fc.assert(
    fc.asyncProperty(value, value, fc.string({ maxLength: 8 }), async (a, b, key) => {
      const q = (v: string) => encodeURIComponent(v);
      const urls: ["GET" | "DELETE" | "POST", string][] = [
        ["GET", `/api/v1/memory/recent?k=${q(a)}`],
        ["GET", `/api/v1/memory/recent?k=${q(a)}&${q(key)}=${q(b)}`],
        ["GET", `/api/v1/memory/${q(a)}/relations`],
        ["DELETE", `/api/v1/relations?fromId=${q(a)}&toId=${q(b)}&relType=${q(key)}`],
        ["DELETE", `/api/tokens/${q(a)}`],
        ["POST", `/api/keys/${q(a)}/test`],
      ];
      for (const [method, url] of urls) {
        const res = await send(method, url, undefined, undefined);
        assertClear(res.statusCode, res.body, `${method} ${url}`);
      }
    }),
    { numRuns: 100 },
  );
  t.pass();
});
