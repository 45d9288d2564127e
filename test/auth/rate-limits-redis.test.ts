import test from "ava";
import { Redis } from "ioredis";
import { testModels } from "../graph/graph-test-kit.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { freshEmail, freshIp, requestSignIn } from "../tenancy/sign-in-helper.js";

// Redis mode (REDIS_URL) against the real Redis at 127.0.0.1:6379: two service replicas on one
// Redis share every counter; with Redis gone each process still limits on its own.

const REDIS_URL = "redis://127.0.0.1:6379";

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const redisUp = await redisReachable();
if (!redisUp)
  console.warn(`Redis at ${REDIS_URL} is unreachable: the Redis-mode rate-limit tests are skipped`);
const run = redisUp ? test.serial : test.skip;

const prefix = `memory-test-rl-${process.pid}-${Date.now()}`;
let replicaA: TestService;
let replicaB: TestService;
let isolated: TestService;
let proxy: TcpProxy;

test.before(async () => {
  if (!redisUp) return;
  const env = { REDIS_URL, RATE_LIMIT_PREFIX: prefix, TRUST_PROXY: "true" };
  replicaA = await startTestService({ models: testModels(), worker: false, env });
  // The second replica shares the first one's database, as replicas of one deployment do.
  replicaB = await startTestService({
    models: testModels(),
    worker: false,
    env,
    mapDatabaseUrl: () => replicaA.database.url,
  });
  proxy = await startTcpProxy("127.0.0.1", 6379);
  isolated = await startTestService({
    models: testModels(),
    worker: false,
    env: {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_PREFIX: `${prefix}-iso`,
      TRUST_PROXY: "true",
    },
  });
});

test.after.always(async () => {
  await replicaB?.stop();
  await replicaA?.stop();
  await isolated?.stop();
  await proxy?.close();
  if (!redisUp) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

run("two replicas on one Redis share the per-IP sign-in budget", async (t) => {
  const ip = freshIp();
  for (let i = 0; i < 3; i++) t.is((await requestSignIn(replicaA, freshEmail("r"), { ip })).status, 200);
  for (let i = 0; i < 2; i++) t.is((await requestSignIn(replicaB, freshEmail("r"), { ip })).status, 200);
  const sixth = await requestSignIn(replicaA, freshEmail("r"), { ip });
  t.is(sixth.status, 429);
  t.regex(sixth.headers.get("retry-after") ?? "", /^\d+$/);
  t.is((await requestSignIn(replicaB, freshEmail("r"), { ip })).status, 429);
});

run("two replicas on one Redis share a token's per-minute budget", async (t) => {
  const tenant = await replicaA.createTenant({ plan: "free", limitsOverride: {} });
  const headers = { authorization: `Bearer ${tenant.token}` };
  const call = (s: TestService) => fetch(`${s.httpUrl}/api/auth/session`, { headers }).then((r) => r.status);
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push(await call(replicaA));
  for (let i = 0; i < 10; i++) statuses.push(await call(replicaB));
  t.true(statuses.every((s) => s === 200));
  t.is(await call(replicaA), 429);
  t.is(await call(replicaB), 429);
});

run("the counters live in Redis under RATE_LIMIT_PREFIX", async (t) => {
  await requestSignIn(replicaA, freshEmail("k"), { ip: freshIp() });
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    t.true(
      keys.some((k) => k.startsWith(`${prefix}:ip-signin:`)),
      keys.join(", "),
    );
    t.true(
      keys.some((k) => k.startsWith(`${prefix}:credential:`)),
      keys.join(", "),
    );
  } finally {
    redis.disconnect();
  }
});

run("with Redis unreachable each process still limits (in memory) and nothing fails", async (t) => {
  const ip = freshIp();
  t.is((await requestSignIn(isolated, freshEmail("down"), { ip })).status, 200);
  proxy.cut();
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await requestSignIn(isolated, freshEmail("down"), { ip })).status);
    t.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    t.is(statuses[5], 429);
    t.is((await fetch(`${isolated.httpUrl}/health`)).status, 200);
  } finally {
    proxy.restore();
  }
});
