import test from "ava";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";

// Issue 15, item 5: a hung database (SIGSTOP, stalled disk: connections open, no answer) made
// /api/health wait for the 30 s core deadline and answer 504. The probe has its own short deadline:
// 503 with the database reported down, in under 2 s, and 200 again once the database answers.

let service: TestService;
let tenant: TestTenant;
let proxy: TcpProxy;

test.before(async () => {
  proxy = await startTcpProxy("127.0.0.1", 5432);
  service = await startTestService({
    mapDatabaseUrl: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(proxy.port);
      return u.toString();
    },
  });
  tenant = await service.createTenant();
});

test.after.always(async () => {
  proxy?.thaw();
  await service?.stop();
  await proxy?.close();
});

test("GET /api/health answers 503 within 2 s while the database hangs, and 200 after it answers again", async (t) => {
  const headers = { authorization: `Bearer ${tenant.token}` };
  t.is((await fetch(`${service.httpUrl}/api/health`, { headers })).status, 200);
  proxy.freeze();
  try {
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      // The client gives up at 2 s: a late answer fails the test as a timeout.
      const res = await fetch(`${service.httpUrl}/api/health`, {
        headers,
        signal: AbortSignal.timeout(2000),
      });
      const ms = performance.now() - started;
      t.is(res.status, 503);
      const body = (await res.json()) as { components?: { name: string; status: string }[]; error?: string };
      if (body.components) t.is(body.components.find((c) => c.name === "database")?.status, "down");
      else t.regex(body.error ?? "", /unavailable/);
      t.log(`503 after ${Math.round(ms)} ms`);
    }
    t.is((await fetch(`${service.httpUrl}/health`, { signal: AbortSignal.timeout(2000) })).status, 200);
  } finally {
    proxy.thaw();
  }
  await waitFor(
    async () =>
      (await fetch(`${service.httpUrl}/api/health`, { headers })).status === 200 ? true : undefined,
    { what: "/api/health to recover after the database answers again", timeoutMs: 30_000 },
  );
  t.pass();
});
