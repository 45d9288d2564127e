import test from "ava";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";

let service: TestService;
let tenant: TestTenant;
let proxy: TcpProxy;

test.before(async () => {
  proxy = await startTcpProxy("127.0.0.1", 5432);
  service = await startTestService({
    mapDatabaseUrl: (url) => {
      const u = new URL(url);
      // Route the service's database traffic through the proxy so the test can cut it.
      u.port = String(proxy.port);
      u.hostname = "127.0.0.1";
      return u.toString();
    },
  });
  tenant = await service.createTenant();
});

test.after.always(async () => {
  proxy.restore();
  await service?.stop();
  await proxy.close();
});

test.serial("GET /health answers ok in plain text without credentials", async (t) => {
  const res = await fetch(`${service.httpUrl}/health`);
  t.is(res.status, 200);
  t.regex(res.headers.get("content-type") ?? "", /^text\/plain/);
  t.is(await res.text(), "ok");
});

test.serial("GET /api/health reports every dependency with a bearer token", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/health`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  t.is(res.status, 200);
  const body = (await res.json()) as { status: string; components: { name: string; status: string }[] };
  t.is(body.status, "ok");
  t.deepEqual(
    body.components.map((c) => c.name).sort(),
    ["database", "embedder", "embedding_space", "reranker", "vector_store", "worker"].sort(),
  );
  t.true(body.components.every((c) => c.status === "ok"));
});

test.serial("GET /api/health without a token is 401 with WWW-Authenticate", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/health`);
  t.is(res.status, 401);
  t.regex(res.headers.get("www-authenticate") ?? "", /^Bearer/);
  t.truthy(((await res.json()) as { error: string }).error);
});

test.serial("GET /api/health is 503 while the database is unreachable, and /health stays 200", async (t) => {
  // Authenticate once so the token is cached (the cache is what a real outage would hit first).
  const headers = { authorization: `Bearer ${tenant.token}` };
  t.is((await fetch(`${service.httpUrl}/api/health`, { headers })).status, 200);
  proxy.cut();
  try {
    const res = await waitFor(
      async () => {
        const r = await fetch(`${service.httpUrl}/api/health`, { headers });
        return r.status === 503 ? r : undefined;
      },
      { what: "/api/health to report 503" },
    );
    // Either the status report itself ("database": "down") or, once the token can no longer be
    // verified against the database, the retryable 503 error body.
    const body = (await res.json()) as {
      status?: string;
      error?: string;
      components?: { name: string; status: string }[];
    };
    if (body.components) t.is(body.components.find((c) => c.name === "database")?.status, "down");
    else t.regex(body.error ?? "", /unavailable/);
    const live = await fetch(`${service.httpUrl}/health`);
    t.is(live.status, 200);
  } finally {
    proxy.restore();
  }
  await waitFor(
    async () =>
      (await fetch(`${service.httpUrl}/api/health`, { headers })).status === 200 ? true : undefined,
    { what: "recovery after the database came back" },
  );
  t.pass();
});

test.serial("every response carries a request id; a valid incoming X-Request-Id is echoed", async (t) => {
  const res = await fetch(`${service.httpUrl}/health`, { headers: { "x-request-id": "abc-123" } });
  t.is(res.headers.get("x-request-id"), "abc-123");
  const other = await fetch(`${service.httpUrl}/health`, {
    headers: { "x-request-id": "bad id with spaces" },
  });
  t.regex(other.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
});

test.serial("unknown routes answer 404 with an error body", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/does-not-exist`);
  t.is(res.status, 404);
  t.truthy(((await res.json()) as { error: string }).error);
});
