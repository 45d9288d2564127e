import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import test from "ava";
import { BEARER, HAPPY_CORE, STUB_TOKEN, type StubEdge, startStubEdge } from "./stub-edge.js";

// Cross-cutting behaviour of the edge as REST callers see it, over real HTTP: request ids,
// access logs without secrets, CORS (off unless configured), compression of large responses.

const SESSION_SECRET = "S3cr3tS3ss10nV4lu3S3cr3tS3ss10nV4lu3S3cr3t0";

let plain: StubEdge;
let plainUrl: string;
let withCors: StubEdge;
let corsUrl: string;

async function listen(edge: StubEdge): Promise<string> {
  await edge.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(edge.app.server.address() as AddressInfo).port}`;
}

test.before(async () => {
  const core = {
    ...HAPPY_CORE,
    recall: {
      ...HAPPY_CORE.recall,
      // "big" asks for a response far above the compression threshold.
      recall: async (req: { query: string }) => ({
        hits: Array.from({ length: req.query === "big" ? 25 : 1 }, (_, i) => ({
          memoryId: `m${i}`,
          title: `Memory ${i}`,
          snippet: "Die Kündigungsfrist beträgt drei Monate zum Quartalsende. ".repeat(
            req.query === "big" ? 20 : 1,
          ),
          score: 1 / (i + 1),
          source: "hybrid",
          hops: 0,
        })),
        latencyMs: 2,
      }),
    },
  };
  plain = await startStubEdge(core);
  plainUrl = await listen(plain);
  withCors = await startStubEdge(core, { corsOrigins: ["https://app.example.test"] });
  corsUrl = await listen(withCors);
});

test.after.always(async () => {
  await plain?.app.close();
  await withCors?.app.close();
});

function recall(base: string, query: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/api/memory/recall`, {
    method: "POST",
    headers: { ...BEARER, "content-type": "application/json", ...headers },
    body: JSON.stringify({ query }),
  });
}

test("X-Request-Id: a valid incoming id is echoed and reaches core; otherwise one is made", async (t) => {
  const given = await recall(plainUrl, "x", { "x-request-id": "client-req.42" });
  t.is(given.headers.get("x-request-id"), "client-req.42");
  t.true(plain.calls.some((call) => call.headers.get("x-request-id") === "client-req.42"));
  const made = await recall(plainUrl, "x", { "x-request-id": "no spaces allowed" });
  t.regex(made.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  // Error answers carry it too.
  const failed = await fetch(`${plainUrl}/api/v1/memory/recent?k=0`, { headers: BEARER });
  t.is(failed.status, 400);
  t.truthy(failed.headers.get("x-request-id"));
});

test("access logs are structured JSON per request and carry no credentials or secret query values", async (t) => {
  const requestId = "log-check-1";
  await fetch(`${plainUrl}/api/v1/memory/recent?k=1&token=MagicLinkSecret123`, {
    headers: { ...BEARER, cookie: `service.session-token=${SESSION_SECRET}`, "x-request-id": requestId },
  });
  await fetch(`${plainUrl}/api/keys`, {
    method: "POST",
    headers: { cookie: `service.session-token=${SESSION_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({ provider: "openai", label: "main", apiKey: "sk-live-TopSecretProviderKey" }),
  });
  const lines = plain.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const mine = lines.filter((l) => l.reqId === requestId);
  t.true(mine.length >= 2, "an incoming and a completed line");
  const completed = mine.find((l) => l.res !== undefined) as { res: { statusCode: number } } | undefined;
  t.is(completed?.res.statusCode, 400);
  const incoming = mine.find((l) => l.req !== undefined) as
    | { req: { method: string; url: string } }
    | undefined;
  t.is(incoming?.req.method, "GET");
  t.regex(incoming?.req.url ?? "", /token=\[redacted\]/);
  const all = plain.logLines.join("\n");
  for (const secret of [STUB_TOKEN, SESSION_SECRET, "MagicLinkSecret123", "TopSecretProviderKey"]) {
    t.false(all.includes(secret), `${secret.slice(0, 12)}… is not logged`);
  }
});

test("CORS is off by default: no Access-Control headers, preflight not answered", async (t) => {
  const preflight = await fetch(`${plainUrl}/api/memory/recall`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example.test",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type",
    },
  });
  t.is(preflight.headers.get("access-control-allow-origin"), null);
  const res = await recall(plainUrl, "x", { origin: "https://app.example.test" });
  t.is(res.status, 200);
  t.is(res.headers.get("access-control-allow-origin"), null);
});

test("CORS, when configured, allows exactly the listed origins", async (t) => {
  const preflight = await fetch(`${corsUrl}/api/memory/recall`, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example.test",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type",
    },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get("access-control-allow-origin"), "https://app.example.test");
  t.is(preflight.headers.get("access-control-allow-credentials"), "true");
  const allowed = await recall(corsUrl, "x", { origin: "https://app.example.test" });
  t.is(allowed.headers.get("access-control-allow-origin"), "https://app.example.test");
  const other = await recall(corsUrl, "x", { origin: "https://evil.example.test" });
  t.is(other.headers.get("access-control-allow-origin"), null);
});

test("large responses are compressed when the client accepts it; small ones are not", async (t) => {
  const big = await recall(plainUrl, "big", { "accept-encoding": "gzip" });
  t.is(big.status, 200);
  t.is(big.headers.get("content-encoding"), "gzip");
  const raw = Buffer.from(await big.arrayBuffer());
  // fetch may already have decoded the body; either way it is the full recall result.
  const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
  const body = JSON.parse(text) as { hits: unknown[] };
  t.is(body.hits.length, 25);
  const small = await recall(plainUrl, "x", { "accept-encoding": "gzip" });
  t.is(small.headers.get("content-encoding"), null);
  const identity = await recall(plainUrl, "big", { "accept-encoding": "identity" });
  t.is(identity.headers.get("content-encoding"), null);
});
