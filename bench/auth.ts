import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import autocannon from "autocannon";
import { createLogger } from "../config/logger.js";
import { createAuthInterceptor } from "../core/auth/auth-interceptor.js";
import { createAuthenticator } from "../core/auth/authenticate.js";
import { principalKey } from "../core/auth/principal.js";
import { createRateLimitInterceptor } from "../core/auth/rate-limit-interceptor.js";
import { createErrorInterceptor } from "../core/error-interceptor.js";
import { createValidateInterceptor } from "../core/validate-interceptor.js";
import { TenancyService } from "../gen/memory/v1/tenancy_service_pb.js";
import { createRateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { testModels } from "../test/graph/graph-test-kit.js";
import { startTestService, type TestService } from "../test/helpers/test-service.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:auth` (issue #4 "Measure"): requests/s of an authenticated no-op RPC against the
// same RPC unauthenticated, in one run. The RPC is TenancyService/GetSession: it answers from the
// caller's principal without a query, so what differs between the variants is authentication.
//
// Three chains over the same core routes, each behind a plain HTTP/1.1 server speaking Connect
// (JSON), loaded with autocannon over loopback:
//   bare        error → (principal set from a constant) → validate       "unauthenticated"
//   auth        error → auth (Bearer parse, SHA-256, 1 s cache, lastUsedAt throttle) → validate
//   auth+limit  error → auth → per-token rate limit (memory) → validate  (what core runs)
// plus the same three in process (createRouterTransport, no network), where the call itself costs
// least and the ratio is strictest. The machine is shared (2 cores, several services and test runs)
// and throughput drifts by a factor of two within a minute, so: HTTP runs are short and interleaved
// (order rotated each round) and the overhead is the median of the per-round ratios of variants run
// back to back; in process the variants alternate call by call and are compared by median call
// time. Finally one cached authentication alone is timed (µs per call). Target: auth < 10 %.
// Needs PostgreSQL like `npm test` (TEST_DATABASE_URL or 127.0.0.1:5432).

const ROUNDS = Number(process.argv[2] ?? 30);
const REQUESTS = Number(process.argv[3] ?? 1500);
const IN_PROCESS_CALLS = Number(process.argv[4] ?? 20_000);
const MICRO_CALLS = 100_000;
const CONNECTIONS = 10;

type Variant = "bare" | "auth" | "auth+limit";
const VARIANTS: readonly Variant[] = ["bare", "auth", "auth+limit"];

const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

let service: TestService | undefined;
const servers: Server[] = [];

try {
  service = await startTestService({ models: testModels(), worker: false });
  const tenant = await service.createTenant({ limitsOverride: { requestsPerMinutePerToken: 100_000_000 } });
  const authorization = `Bearer ${tenant.token}`;
  const logger = createLogger("silent");
  const authenticator = createAuthenticator({ db: service.storage.db });
  const principal = await authenticator.resolve({ authorization });
  const rateLimiters = createRateLimiters({ keyPrefix: "bench-auth", logger });

  const fixedPrincipal: Interceptor = (next) => async (req) => {
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
  const auth = createAuthInterceptor(authenticator, { trustClientIp: false });
  const chains: Record<Variant, Interceptor[]> = {
    bare: [createErrorInterceptor(logger), fixedPrincipal, createValidateInterceptor()],
    auth: [createErrorInterceptor(logger), auth, createValidateInterceptor()],
    "auth+limit": [
      createErrorInterceptor(logger),
      auth,
      createRateLimitInterceptor(rateLimiters),
      createValidateInterceptor(),
    ],
  };
  const routes = service.core.routes;

  const urls = {} as Record<Variant, string>;
  for (const variant of VARIANTS) {
    const server = createServer(connectNodeAdapter({ routes, interceptors: chains[variant] }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    urls[variant] =
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/memory.v1.TenancyService/GetSession`;
  }
  const headers = {
    authorization,
    "content-type": "application/json",
    "connect-protocol-version": "1",
    "accept-encoding": "identity",
  };
  // Every variant must answer the same call the same way before anything is timed.
  for (const variant of VARIANTS) {
    const res = await fetch(urls[variant], { method: "POST", headers, body: "{}" });
    const body = (await res.json()) as { tenantId?: string };
    if (res.status !== 200 || body.tenantId !== tenant.tenantId) {
      throw new Error(`${variant}: ${res.status} ${JSON.stringify(body)}`);
    }
  }

  async function load(url: string, amount: number): Promise<{ rps: number; non2xx: number; errors: number }> {
    const started = performance.now();
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      autocannon(
        { url, method: "POST", headers, body: "{}", connections: CONNECTIONS, amount, timeout: 30 },
        (error, finished) => (error ? reject(error) : resolve(finished)),
      );
    });
    const seconds = (performance.now() - started) / 1000;
    return { rps: result.requests.total / seconds, non2xx: result.non2xx, errors: result.errors };
  }

  log(
    `warming up (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")})`,
  );
  for (const variant of VARIANTS) await load(urls[variant], 2000);

  const http: Record<Variant, number[]> = { bare: [], auth: [], "auth+limit": [] };
  let failures = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order each round so no variant always runs first (or last) in a round.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length] as Variant);
    for (const variant of order) {
      const run = await load(urls[variant], REQUESTS);
      failures += run.non2xx + run.errors;
      http[variant].push(run.rps);
    }
    if ((r + 1) % 10 === 0 || r === 0) {
      log(`round ${r + 1}: ${VARIANTS.map((v) => `${v} ${Math.round(http[v].at(-1) ?? 0)}/s`).join(", ")}`);
    }
  }

  // In process, call by call: the three variants alternate on every call, so a moment of machine
  // load lands on all three alike; each variant's median call time is then robust to preemption.
  const clients = Object.fromEntries(
    VARIANTS.map((v) => [
      v,
      createClient(TenancyService, createRouterTransport(routes, { router: { interceptors: chains[v] } })),
    ]),
  ) as Record<Variant, ReturnType<typeof createClient<typeof TenancyService>>>;
  const callMicros: Record<Variant, number[]> = { bare: [], auth: [], "auth+limit": [] };
  for (let i = 0; i < IN_PROCESS_CALLS; i++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const variant = VARIANTS[(i + k) % VARIANTS.length] as Variant;
      const started = performance.now();
      await clients[variant].getSession({}, { headers: { authorization } });
      callMicros[variant].push((performance.now() - started) * 1000);
    }
  }
  const inProcess: Record<Variant, number[]> = {
    bare: [1e6 / median(callMicros.bare)],
    auth: [1e6 / median(callMicros.auth)],
    "auth+limit": [1e6 / median(callMicros["auth+limit"])],
  };

  /** Overhead of `v` against bare from the rounds' paired ratios (same round: same machine load). */
  const pairedOverhead = (runs: Record<Variant, number[]>, v: Variant) =>
    round1((1 - median(runs[v].map((rps, i) => rps / (runs.bare[i] ?? rps)))) * 100);
  const summarise = (runs: Record<Variant, number[]>) => {
    const out: Record<string, unknown> = {};
    for (const v of VARIANTS) {
      out[v] = {
        medianRequestsPerSecond: Math.round(median(runs[v])),
        minRequestsPerSecond: Math.round(Math.min(...runs[v])),
        maxRequestsPerSecond: Math.round(Math.max(...runs[v])),
        overheadPercentVsBare: v === "bare" ? 0 : pairedOverhead(runs, v),
      };
    }
    return out;
  };
  const httpSummary = summarise(http);
  const inProcessSummary = summarise(inProcess);
  const authOverhead = pairedOverhead(http, "auth");
  const fullOverhead = pairedOverhead(http, "auth+limit");

  // One cached authentication alone, and one bare in-process call, in µs.
  const startedMicro = performance.now();
  for (let i = 0; i < MICRO_CALLS; i++) await authenticator.resolve({ authorization });
  const authMicros = ((performance.now() - startedMicro) * 1000) / MICRO_CALLS;
  const bareMicros = 1e6 / median(inProcess.bare);
  log(
    `one cached authentication: ${authMicros.toFixed(2)} µs; one bare in-process call: ${bareMicros.toFixed(1)} µs`,
  );
  log(`HTTP (Connect JSON, ${CONNECTIONS} connections): ${JSON.stringify(httpSummary)}`);
  log(`in process: ${JSON.stringify(inProcessSummary)}`);
  log(`auth overhead ${authOverhead} %, auth + rate limit ${fullOverhead} % (target < 10 %)`);
  writeBenchResult("auth", {
    command: `npm run bench:auth -- ${ROUNDS} ${REQUESTS} ${IN_PROCESS_CALLS}`,
    rpc: "memory.v1.TenancyService/GetSession (answers from the principal, no query)",
    method:
      "Three interceptor chains over the same core routes: bare (principal set from a constant), auth (Bearer parse, SHA-256, 1 s token cache), auth+limit (plus the per-token limiter, memory store). HTTP: Connect JSON over HTTP/1.1 on loopback with autocannon, short runs interleaved with the order rotated per round, overhead = median of per-round paired ratios. In process: createRouterTransport, variants alternating call by call, compared by median call time.",
    loadAverageAtEnd: loadavg().map((l) => Math.round(l * 10) / 10),
    rounds: ROUNDS,
    note: "shared 2-core machine: compare the paired overheads, not the absolute requests per second",
    requestsPerRun: REQUESTS,
    connections: CONNECTIONS,
    http: httpSummary,
    inProcess: {
      calls: IN_PROCESS_CALLS,
      method: "variants alternate call by call; requests/s = 1 / median call time",
      medianCallMicros: Object.fromEntries(VARIANTS.map((v) => [v, round1(median(callMicros[v]))])),
      ...inProcessSummary,
    },
    cachedAuthenticationMicros: Math.round(authMicros * 100) / 100,
    bareInProcessCallMicros: Math.round(bareMicros * 10) / 10,
    authOverheadPercent: authOverhead,
    authAndRateLimitOverheadPercent: fullOverhead,
    targetPercent: 10,
    failedRequests: failures,
  });
  await rateLimiters.close();
} finally {
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  await service?.stop();
}
