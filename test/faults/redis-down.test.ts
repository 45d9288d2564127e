import { type ChildProcess, spawn } from "node:child_process";
import test from "ava";
import { Redis } from "ioredis";
import { testModels } from "../graph/graph-test-kit.js";
import { freePort } from "../helpers/free-port.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";

// Issue 15 "Suites": Redis down → rate limits fall back to memory with one logged warning, and
// requests keep succeeding. The test runs a redis-server of its own and kills it (-9).

const WARNING = "Redis for rate limits unreachable; limiting per process until it is back";

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString("utf8").includes("Ready to accept connections")) resolve(child);
    });
  });
}

let redisPort: number;
let redis: ChildProcess | undefined;
let service: TestService;

test.before(async () => {
  redisPort = await freePort();
  redis = await startRedis(redisPort);
  service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, RATE_LIMIT_PREFIX: `fault-${process.pid}` },
  });
});

test.after.always(async () => {
  await service?.stop();
  redis?.kill("SIGKILL");
});

test("Redis killed: one warning, requests keep succeeding, limits count in memory; Redis back: shared again", async (t) => {
  const tenant = await service.createTenant({ limitsOverride: { requestsPerMinutePerToken: 40 } });
  const recall = () =>
    fetch(`${service.httpUrl}/api/memory/recall`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "anything" }),
    }).then((r) => r.status);
  t.is(await recall(), 200);
  const probe = new Redis(`redis://127.0.0.1:${redisPort}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on("error", () => undefined);
  await probe.connect();
  t.true((await probe.keys(`fault-${process.pid}:*`)).length > 0, "counters live in this Redis");
  probe.disconnect();

  const exited = new Promise((resolve) => redis?.once("exit", resolve));
  redis?.kill("SIGKILL");
  await exited;
  const statuses: number[] = [];
  for (let i = 0; i < 45; i++) statuses.push(await recall());
  // The in-memory insurance limiter starts from zero: 40 allowed per minute, then 429.
  t.deepEqual(statuses.slice(0, 40), Array(40).fill(200));
  t.true(
    statuses.slice(40).every((s) => s === 429),
    statuses.slice(40).join(","),
  );
  t.is((await fetch(`${service.httpUrl}/health`)).status, 200);
  // ioredis retries the connection in the background meanwhile; still one warning per outage.
  await new Promise((r) => setTimeout(r, 1500));
  const warnings = service.logLines.filter((l) => l.includes(WARNING));
  t.is(warnings.length, 1, warnings.join("\n"));

  // Redis back on the same port: the limiter uses it again (a fresh Redis: counts start over).
  redis = await startRedis(redisPort);
  // A fresh token: the old one's in-memory budget is spent.
  const fresh = await tenant.issueToken(["read"]);
  await waitFor(
    async () => {
      const status = await fetch(`${service.httpUrl}/api/memory/recall`, {
        method: "POST",
        headers: { authorization: `Bearer ${fresh.token}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "anything" }),
      }).then((r) => r.status);
      if (status !== 200) return undefined;
      const check = new Redis(`redis://127.0.0.1:${redisPort}`, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
      });
      check.on("error", () => undefined);
      await check.connect();
      const keys = await check.keys(`fault-${process.pid}:*`);
      check.disconnect();
      return keys.length > 0 ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500, what: "the limiter to write to Redis again" },
  );
  t.pass();
});
