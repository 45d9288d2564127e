import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import { planGateError, rateLimited } from "../../core/errors.js";
import { HTTP_STATUS_BY_CODE } from "../../gateway-rest/http-errors.js";
import { BEARER, HAPPY_CORE, type StubEdge, startStubEdge } from "./stub-edge.js";

// Every failure a REST route can meet, through the real edge in front of a stub core: each gRPC
// code, plan gates, rate limits, deadlines, and the request errors the gateway answers itself.

let failWith: ConnectError | undefined;
let edge: StubEdge;

test.before(async () => {
  edge = await startStubEdge(
    {
      ...HAPPY_CORE,
      recall: {
        ...HAPPY_CORE.recall,
        recall: async (req, ctx) => {
          if (req.query === "hang") {
            // Never answers: only the gateway's deadline ends the call.
            await new Promise((_resolve, reject) =>
              ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
            );
          }
          if (failWith) throw failWith;
          return { hits: [], latencyMs: 1, reranker: "none", timings: [] };
        },
      },
      tenancy: {
        ...HAPPY_CORE.tenancy,
        // A refusal before the first chunk must still become a status, not a broken download.
        // biome-ignore lint/correctness/useYield: refuses before streaming anything
        exportAudit: async function* () {
          throw planGateError({
            feature: "audit_export",
            currentPlan: "free",
            requiredPlans: ["pro", "team", "api"],
            message: "",
            upgradeUrl: "https://example.test/pricing",
          });
        },
      },
      ingest: {
        ...HAPPY_CORE.ingest,
        ingestDocument: async () => {
          throw planGateError({
            feature: "memories",
            currentPlan: "free",
            requiredPlans: ["pro", "team", "api"],
            limit: 2500n,
            used: 2500n,
            message: "Memory limit reached: 2,500 of 2,500 memories.",
            upgradeUrl: "https://example.test/pricing",
          });
        },
      },
    },
    { coreTimeoutMs: 200 },
  );
});

test.after.always(async () => {
  await edge?.app.close();
});

function recall(body: string, headers: Record<string, string> = {}) {
  return edge.app.inject({
    method: "POST",
    url: "/api/memory/recall",
    headers: { ...BEARER, "content-type": "application/json", ...headers },
    payload: body,
  });
}

const codes = Object.entries(Code).filter((e): e is [string, Code] => typeof e[1] === "number");

for (const [name, code] of codes) {
  test.serial(`core ${name} answers ${HTTP_STATUS_BY_CODE[code]} with {error}`, async (t) => {
    failWith = new ConnectError(`core says ${name}`, code);
    try {
      const res = await recall('{"query":"x"}');
      t.is(res.statusCode, HTTP_STATUS_BY_CODE[code]);
      t.regex(String(res.headers["content-type"]), /^application\/json/);
      const body = res.json<{ error: string }>();
      t.deepEqual(Object.keys(body), ["error"]);
      // Unknown errors are internal: their message is not passed on.
      if (code === Code.Unknown) t.is(body.error, "internal error");
      else t.true(body.error.includes(`core says ${name}`), body.error);
      if (code === Code.Unauthenticated) t.regex(String(res.headers["www-authenticate"]), /^Bearer /);
      if (code === Code.ResourceExhausted) t.is(res.headers["retry-after"], "60");
    } finally {
      failWith = undefined;
    }
  });
}

test.serial("429 carries Retry-After in seconds from core's RetryInfo", async (t) => {
  failWith = rateLimited(42);
  try {
    const res = await recall('{"query":"x"}');
    t.is(res.statusCode, 429);
    t.is(res.headers["retry-after"], "42");
  } finally {
    failWith = undefined;
  }
});

test("402 returns the plan-gate body verbatim", async (t) => {
  const res = await edge.app.inject({
    method: "POST",
    url: "/api/documents",
    headers: BEARER,
    payload: { title: "t", content: "c" },
  });
  t.is(res.statusCode, 402);
  t.deepEqual(res.json(), {
    error: "plan_upgrade_required",
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["pro", "team", "api"],
    limit: 2500,
    used: 2500,
    message: "Memory limit reached: 2,500 of 2,500 memories.",
    upgradeUrl: "https://example.test/pricing",
  });
});

test("a streamed export refused by core before its first chunk answers the status (402), not a broken file", async (t) => {
  const res = await edge.app.inject({
    method: "GET",
    url: "/api/audit/export",
    headers: { cookie: `service.session-token=${"s".repeat(43)}` },
  });
  t.is(res.statusCode, 402);
  t.like(res.json(), { error: "plan_upgrade_required", feature: "audit_export", currentPlan: "free" });
  const bundle = await edge.app.inject({
    method: "GET",
    url: "/api/tenant/export",
    headers: { cookie: `service.session-token=${"s".repeat(43)}` },
  });
  t.is(bundle.statusCode, 200);
  t.regex(String(bundle.headers["content-disposition"]), /attachment/);
  t.deepEqual(bundle.json(), { memories: [], edges: [], audit: [] });
});

test("a core call past the deadline answers 504", async (t) => {
  const res = await recall('{"query":"hang"}');
  t.is(res.statusCode, 504);
  t.truthy(res.json<{ error: string }>().error);
});

test("malformed JSON is 400 and says so", async (t) => {
  for (const body of ["{", '{"query": }', "nul", '{"query":"x"}}', "[1,2"]) {
    const res = await recall(body);
    t.is(res.statusCode, 400, body);
    t.is(res.json<{ error: string }>().error, "body is not valid JSON", body);
  }
});

test("an empty JSON body is 400", async (t) => {
  const res = await recall("");
  t.is(res.statusCode, 400);
  t.regex(res.json<{ error: string }>().error, /empty/);
});

test("wrong types, missing and unknown fields are 400 naming the field", async (t) => {
  const cases: [string, RegExp][] = [
    ['{"query":5}', /^query: /],
    ['{"query":"x","k":"5"}', /^k: /],
    ['{"query":"x","k":2.5}', /^k: /],
    ['{"query":"x","k":26}', /^k: .*25/],
    ['{"query":"x","hops":-1}', /^hops: .*0/],
    ['{"k":3}', /^query: is required$/],
    ['{"query":"x","tenantId":"other"}', /^body: unknown field 'tenantId'$/],
    ["[]", /^body: /],
    ['"query"', /^body: /],
    ["null", /^body: /],
  ];
  for (const [body, message] of cases) {
    const res = await recall(body);
    t.is(res.statusCode, 400, body);
    t.regex(res.json<{ error: string }>().error, message, body);
  }
});

test("a wrong content type is 415 on every JSON route", async (t) => {
  const routes = [
    "/api/memory/recall",
    "/api/documents",
    "/api/v1/memory/recall",
    "/api/v1/documents",
    "/api/v1/memory/entries",
    "/api/v1/relations",
    `/api/v1/memory/${"0b3f8e5c-7a1d-4c2e-9f00-5d6c7b8a9e01"}/versions`,
    "/api/checkout",
    "/api/keys",
  ];
  for (const url of routes) {
    for (const type of ["text/plain", "application/xml", "multipart/form-data; boundary=x"]) {
      const res = await edge.app.inject({
        method: "POST",
        url,
        headers: { ...BEARER, "content-type": type },
        payload: "query=x",
      });
      t.is(res.statusCode, 415, `${url} ${type}`);
      t.regex(res.json<{ error: string }>().error, /application\/json/);
    }
  }
});

test("bodies above the spec's sizes are 413 before they are read: documents 10 MB, memories 100 KB", async (t) => {
  const document = await edge.app.inject({
    method: "POST",
    url: "/api/documents",
    headers: { ...BEARER, "content-type": "application/json" },
    payload: JSON.stringify({ title: "big", content: "x".repeat(11 * 1024 * 1024) }),
  });
  t.is(document.statusCode, 413);
  t.regex(document.json<{ error: string }>().error, /larger/);
  const memory = await edge.app.inject({
    method: "POST",
    url: "/api/v1/memory/entries",
    headers: { ...BEARER, "content-type": "application/json" },
    payload: JSON.stringify({ memoryType: "semantic", title: "big", content: "x".repeat(200 * 1024) }),
  });
  t.is(memory.statusCode, 413);
  // Within the limits the same routes accept the body (the gateway's limit is not below the spec's).
  const fits = await edge.app.inject({
    method: "POST",
    url: "/api/v1/memory/entries",
    headers: { ...BEARER, "content-type": "application/json" },
    payload: JSON.stringify({ memoryType: "semantic", title: "fits", content: "x".repeat(100 * 1024) }),
  });
  t.is(fits.statusCode, 201);
});

test("memory entries: 422 for a missing field or a memory_type outside the enum", async (t) => {
  const valid = { memory_type: "episodic", title: "Standup", content: "We shipped." };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ title: "t", content: "c" }, /^memory_type: is required$/],
    [{ ...valid, title: undefined }, /^title: is required$/],
    [{ ...valid, content: undefined }, /^content: is required$/],
    [{ ...valid, content: "" }, /^content: /],
    [{ ...valid, memory_type: "emotional" }, /^memory_type: .*semantic/],
    [{ ...valid, memory_type: undefined, memoryType: "SEMANTIC" }, /^memoryType: /],
    [{ ...valid, memoryType: "semantic" }, /not both/],
    [{ ...valid, title: 7 }, /^title: /],
  ];
  for (const [body, message] of cases) {
    const res = await edge.app.inject({
      method: "POST",
      url: "/api/v1/memory/entries",
      headers: BEARER,
      payload: body,
    });
    t.is(res.statusCode, 422, JSON.stringify(body));
    t.regex(res.json<{ error: string }>().error, message, JSON.stringify(body));
  }
});

test("memory entries accept all six types in either spelling and answer 201", async (t) => {
  for (const type of ["semantic", "episodic", "procedural", "reference", "working", "entity"]) {
    for (const key of ["memory_type", "memoryType"]) {
      const res = await edge.app.inject({
        method: "POST",
        url: "/api/v1/memory/entries",
        headers: BEARER,
        payload: { [key]: type, title: `${type} entry`, content: "text" },
      });
      t.is(res.statusCode, 201, `${key}=${type}`);
      t.like(res.json(), { title: `${type} entry`, status: "indexed", memoryLimit: 2500, warnAt80: false });
    }
  }
});

test("a session-only route forwards no bearer token to core; Both forwards the one it got", async (t) => {
  const cookie = `service.session-token=${"s".repeat(43)}`;
  const call = async (url: string, id: string, headers: Record<string, string>) => {
    const res = await edge.app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": id } });
    return {
      status: res.statusCode,
      error: res.json<{ error?: string }>().error ?? "",
      core: edge.calls.find((c) => c.headers.get("x-request-id") === id),
    };
  };
  const sessionWithBoth = await call("/api/stats", "fwd-1", { ...BEARER, cookie });
  t.is(sessionWithBoth.core?.headers.get("authorization"), null);
  t.is(sessionWithBoth.core?.headers.get("x-session-token"), "s".repeat(43));
  // Only a bearer token on a session route: 401 at the gateway, saying what the route wants.
  const sessionWithBearer = await call("/api/stats", "fwd-2", BEARER);
  t.is(sessionWithBearer.status, 401);
  t.regex(sessionWithBearer.error, /signed-in session/);
  t.is(sessionWithBearer.core, undefined);
  const v1 = await call("/api/v1/stats", "fwd-3", { ...BEARER, cookie });
  t.is(v1.core?.headers.get("authorization"), BEARER.authorization);
  t.is(v1.core?.headers.get("x-session-token"), null);
  // Only a session cookie on the bearer surface: 401 at the gateway.
  const v1WithSession = await call("/api/v1/stats", "fwd-4", { cookie });
  t.is(v1WithSession.status, 401);
  t.regex(v1WithSession.error, /API token/);
  t.is(v1WithSession.core, undefined);
  const both = await edge.app.inject({
    method: "POST",
    url: "/api/memory/recall",
    headers: { ...BEARER, cookie, "x-request-id": "fwd-5" },
    payload: { query: "x" },
  });
  t.is(both.statusCode, 200);
  const bothCore = edge.calls.find((c) => c.headers.get("x-request-id") === "fwd-5");
  t.is(bothCore?.headers.get("authorization"), BEARER.authorization);
});
