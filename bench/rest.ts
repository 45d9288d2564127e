import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import type { Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import autocannon from "autocannon";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { testModels } from "../test/graph/graph-test-kit.js";
import { startTestService, waitFor } from "../test/helpers/test-service.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:rest` (issue #9 "Measure"): POST /api/memory/recall through the REST gateway
// against the same Recall on core directly, in one run, over loopback for a bounded time.
// "Core directly" is core's own routes and interceptors behind a plain HTTP/1.1 server speaking the
// Connect protocol (JSON), so both sides have the same transport and encoding; the difference is
// the gateway: Fastify routing, zod validation, camelCase shaping and the in-process Connect client.
// (Core's gRPC port is HTTP/2 only, which autocannon does not speak.)
//
// 1. Overhead: calls one at a time, gateway and core alternating (order swapped every pair so
//    drift hits both alike); the median of the paired differences is the gateway's p50 overhead.
//    Recall itself varies far more than the gateway costs, so pairing is what makes it measurable.
// 2. Load: autocannon at 1 and 50 connections for each side: throughput, latency (from per-response
//    timings; autocannon's histogram has 1 ms buckets) and errors.
// The load generator shares the process and event loop with the service, at the same cost to both
// sides. Target: overhead < 2 ms p50; no errors at 50 connections. Passed means: the CPU time the
// gateway adds per call is under 2 ms (upper bound of its 95% interval), the wall-time overhead is
// not shown to be above 2 ms (lower bound of its interval), and no call failed at 50 connections.
// Needs PostgreSQL like `npm test` (TEST_DATABASE_URL or 127.0.0.1:5432).

const MEMORIES = 200;
const SECONDS = Number(process.argv[2] ?? 8);
const PAIRS = Number(process.argv[3] ?? 500);
const PAIRED_SECONDS_MAX = 90;
const CONNECTIONS = [1, 50] as const;
const QUERY = { query: "Kündigungsfrist für den Rahmenvertrag mit dem Logistikkunden", k: 5, hops: 2 };

const TOPICS = ["Rahmenvertrag", "Logistik", "Kündigung", "Budget", "Onboarding", "Preise", "Sicherheit"];
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (x: number) => Math.round(x * 1000) / 1000;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

interface RunResult {
  readonly requestsPerSecond: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}

/**
 * One autocannon run of `amount` requests (not a duration: a timed run ends with requests still in
 * flight, which would then race the shutdown of storage).
 */
async function load(
  target: { url: string; headers: Record<string, string>; body: string },
  connections: number,
  amount: number,
): Promise<RunResult> {
  const samples: number[] = [];
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: "POST",
        headers: target.headers,
        body: target.body,
        connections,
        amount,
        timeout: 60,
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const sorted = samples.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(result.requests.total / seconds),
    seconds: round(seconds),
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

// A small deterministic embedder keeps recall itself fast and steady, so the gateway's share shows.
const service = await startTestService({ models: testModels(), worker: false });
let direct: Server | undefined;
// Requests still running on the direct server when a load run ends must finish before storage stops.
let inFlight = 0;
const loadBefore = loadavg();
try {
  // The bench tenant must not meet the per-token rate limit (spec "Rate limits").
  const tenant = await service.createTenant({
    scopes: ["read", "write"],
    limitsOverride: { requestsPerMinutePerToken: 100_000_000 },
  });
  const authorization = `Bearer ${tenant.token}`;
  const seeded = performance.now();
  for (let i = 0; i < MEMORIES; i++) {
    const topic = TOPICS[i % TOPICS.length];
    await service.clients.ingest.storeMemory(
      {
        title: `${topic} ${i}`,
        content: `Notiz ${i} zu ${topic}: Die Kündigungsfrist im Rahmenvertrag beträgt drei Monate; Ansprechpartner wechselt im Quartal ${i % 4}.`,
      },
      { headers: { authorization } },
    );
  }
  log(`seeded ${MEMORIES} memories in ${Math.round(performance.now() - seeded)} ms`);
  // The worker compacts the one-row fragments of single writes (off in this bench): do it here, or
  // every recall scans hundreds of fragments and the end-to-end figures describe an unmaintained table.
  await maintainVectorTable(service.storage.vectors, tenant.tenantId, service.models.embedder.id, {
    maxFragments: 1,
  });

  // Counts calls until their handler is done (a closed socket does not stop a running handler).
  const counting: Interceptor = (next) => async (req) => {
    inFlight++;
    try {
      return await next(req);
    } finally {
      inFlight--;
    }
  };
  direct = createServer(
    connectNodeAdapter({
      routes: service.core.routes,
      interceptors: [counting, ...service.core.interceptors],
    }),
  );
  await new Promise<void>((resolve) => direct?.listen(0, "127.0.0.1", resolve));
  const directPort = (direct.address() as AddressInfo).port;

  const body = JSON.stringify(QUERY);
  const targets = {
    gateway: {
      url: `${service.httpUrl}/api/memory/recall`,
      // Like for like: the direct server does not compress, so neither side is asked to.
      headers: { authorization, "content-type": "application/json", "accept-encoding": "identity" },
      body,
    },
    core: {
      url: `http://127.0.0.1:${directPort}/memory.v1.RecallService/Recall`,
      headers: {
        authorization,
        "content-type": "application/json",
        "connect-protocol-version": "1",
        "accept-encoding": "identity",
      },
      body,
    },
  };

  // Both paths must answer the same call successfully before anything is timed.
  for (const [name, target] of Object.entries(targets)) {
    const res = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
    const text = await res.text();
    if (res.status !== 200 || !text.includes('"hits"'))
      throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
  }
  const hits = ((await service.clients.recall.recall(QUERY, { headers: { authorization } })).hits ?? [])
    .length;
  log(`recall answers ${hits} hits`);

  log("warming up");
  await load(targets.gateway, 10, 50);
  await load(targets.core, 10, 50);

  // One call: wall time, and the CPU time the whole process spent on it (service and client;
  // PostgreSQL runs in its own processes). CPU time is what the gateway adds; on a busy machine
  // wall time also carries waiting for a core.
  const once = async (target: (typeof targets)["gateway"]) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const res = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${target.url}: ${res.status}`);
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wallMs, cpuMs: (used.user + used.system) / 1000 };
  };
  const paired = {
    gateway: [] as number[],
    core: [] as number[],
    difference: [] as number[],
    cpuDifference: [] as number[],
  };
  const pairedUntil = performance.now() + PAIRED_SECONDS_MAX * 1000;
  for (let i = 0; i < PAIRS && performance.now() < pairedUntil; i++) {
    const gatewayFirst = i % 2 === 0;
    const a = await once(gatewayFirst ? targets.gateway : targets.core);
    const b = await once(gatewayFirst ? targets.core : targets.gateway);
    const gateway = gatewayFirst ? a : b;
    const core = gatewayFirst ? b : a;
    paired.gateway.push(gateway.wallMs);
    paired.core.push(core.wallMs);
    paired.difference.push(gateway.wallMs - core.wallMs);
    paired.cpuDifference.push(gateway.cpuMs - core.cpuMs);
  }
  const median = (xs: number[]) =>
    round(
      percentile(
        [...xs].sort((x, y) => x - y),
        50,
      ),
    );
  // How precisely the pairs pin the median down: recall varies by tens of milliseconds on a shared
  // machine, so the wall-time figure can be less certain than the 2 ms it is compared with.
  const bootstrap95 = (xs: number[]) => {
    const medians: number[] = [];
    for (let b = 0; b < 2000; b++) {
      medians.push(median(Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)] ?? 0)));
    }
    medians.sort((x, y) => x - y);
    return [round(percentile(medians, 2.5)), round(percentile(medians, 97.5))];
  };
  const pairedResult = {
    pairs: paired.difference.length,
    gatewayP50Ms: median(paired.gateway),
    coreP50Ms: median(paired.core),
    overheadP50Ms: median(paired.difference),
    overheadP50Ci95Ms: bootstrap95(paired.difference),
    cpuOverheadP50Ms: median(paired.cpuDifference),
    cpuOverheadP50Ci95Ms: bootstrap95(paired.cpuDifference),
  };
  log(`paired: ${JSON.stringify(pairedResult)}`);

  const runs: Record<
    string,
    { gateway: RunResult; core: RunResult; overheadP50Ms: number; overheadMeanMs: number }
  > = {};
  for (const connections of CONNECTIONS) {
    // Alternate the order per concurrency level so neither side always runs second (warmer).
    const gatewayFirst = connections === CONNECTIONS[0];
    // About SECONDS per run at the rate measured one at a time (2 cores: at most twice that).
    const amount = Math.max(
      connections * 4,
      Math.round((1000 / pairedResult.coreP50Ms) * SECONDS * Math.min(2, connections)),
    );
    const first = await load(gatewayFirst ? targets.gateway : targets.core, connections, amount);
    const second = await load(gatewayFirst ? targets.core : targets.gateway, connections, amount);
    const gateway = gatewayFirst ? first : second;
    const core = gatewayFirst ? second : first;
    runs[`connections${connections}`] = {
      gateway,
      core,
      overheadP50Ms: round(gateway.p50Ms - core.p50Ms),
      overheadMeanMs: round(gateway.meanMs - core.meanMs),
    };
    log(
      `${connections} connections: gateway ${gateway.requestsPerSecond} req/s p50 ${gateway.p50Ms} ms, ` +
        `core ${core.requestsPerSecond} req/s p50 ${core.p50Ms} ms, overhead p50 ${round(gateway.p50Ms - core.p50Ms)} ms`,
    );
  }

  const concurrent = runs.connections50;
  const failures = (r: RunResult | undefined) => (r ? r.non2xx + r.errors + r.timeouts : Number.NaN);
  const result = {
    target:
      "REST gateway overhead < 2 ms p50 vs the same Recall on core directly; no errors at 50 connections",
    setup: {
      tool: "autocannon and fetch (in process, loopback HTTP/1.1, accept-encoding identity on both sides)",
      request: { method: "POST", path: "/api/memory/recall", body: QUERY },
      coreDirect: "POST /memory.v1.RecallService/Recall, Connect protocol JSON, core routes + interceptors",
      memories: MEMORIES,
      hitsPerRecall: hits,
      targetSecondsPerLoadRun: SECONDS,
      embedder: service.models.embedder.id,
      reranker: service.models.reranker?.id ?? "none",
      loadAverage: { before: loadBefore.map(round), after: loadavg().map(round) },
    },
    overhead: pairedResult,
    load: runs,
    failuresAt50Connections: { gateway: failures(concurrent?.gateway), core: failures(concurrent?.core) },
    // The gateway's own cost is its CPU time per call: on an idle machine a sequential call's added
    // wall time is that CPU time; on a shared one wall time adds waiting for a core (and its
    // confidence interval says how far the run could resolve it).
    passed:
      (pairedResult.cpuOverheadP50Ci95Ms[1] ?? Number.POSITIVE_INFINITY) < 2 &&
      (pairedResult.overheadP50Ci95Ms[0] ?? Number.POSITIVE_INFINITY) < 2 &&
      failures(concurrent?.gateway) === 0 &&
      failures(concurrent?.core) === 0,
  };
  log(JSON.stringify(result, null, 2));
  writeBenchResult("rest", result);
} finally {
  await waitFor(() => (inFlight === 0 ? true : undefined), {
    timeoutMs: 120_000,
    what: "direct calls to finish",
  });
  direct?.closeAllConnections();
  await new Promise<void>((resolve) => (direct ? direct.close(() => resolve()) : resolve()));
  await service.stop();
}
