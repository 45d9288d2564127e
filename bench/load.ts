/**
 * `npm run bench:load` (issue 15 "Measure"): recall through REST at 50 connections against a real
 * started service (`npm start` as a child process, so the load generator does not share its event
 * loop) over 10k memories.
 *
 *   npm run bench:load -- [--memories 10000] [--connections 50] [--seconds 30] [--database-url URL]
 *
 * 1. Fill: a fresh database and data directory; one tenant gets `--memories` one-chunk memories
 *    (synthetic German text from the eval corpus, bench/synthetic-corpus.ts) written as ingest writes
 *    them — memory row, chunk with its tsvector, built-in-embedder vector in LanceDB — and the table
 *    maintenance the worker runs (ANN index from 1,200 rows), then statistics.
 * 2. Load: the service starts on that data; after a warm-up, autocannon runs POST /api/memory/recall
 *    with the xquad_de questions in turn for `--seconds`: req/s, p50/p95/p99 from per-response
 *    timings, non-2xx and errors, the service's RSS and PostgreSQL connections at start and end.
 * 3. Mixed (`--mixed-seconds`, 0 skips): 70 % recall, 20 % store, 10 % list/stats through REST and
 *    MCP at the same connections (bench/load-mixed.ts): req/s, p50/p99 and failures per operation.
 * Targets (quiet machine): ≥ 150 req/s, p99 ≤ 500 ms, no non-2xx, RSS flat (± 10 %).
 * Writes bench/results/load.json. Run it under `flock /tmp/heavy.lock` on a shared machine.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import postgres from "postgres";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { startStorage } from "../core/start-storage.js";
import { issueApiToken } from "../core/tenancy/api-tokens.js";
import { createTenant } from "../core/tenancy/tenants.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { freePort } from "../test/helpers/free-port.js";
import { spawnService, waitForHealth } from "../test/helpers/service-process.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { fillSyntheticMemories } from "./fill-synthetic-memories.js";
import { runMixedLoad } from "./load-mixed.js";
import { calibrationMs, cpuPerRequest, cpuSnapshot } from "./process-cpu.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "10000" },
    connections: { type: "string", default: "50" },
    seconds: { type: "string", default: "30" },
    "database-url": { type: "string" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
    out: { type: "string", default: "load" },
    // The mixed phase (70 % recall, 20 % store, 10 % list/stats over REST and MCP); 0 skips it.
    "mixed-seconds": { type: "string", default: "30" },
    // Seconds of load at full connections before the measured run (0: only the light warm-up). RSS
    // grows in the first ≈ 10 s at 50 connections (462 → 622 MB, then 594–657 MB for 80 s: allocator
    // arenas of the concurrent threads, caches), so "RSS flat" is judged after it.
    "warm-seconds": { type: "string", default: "10" },
    // Writes a V8 CPU profile of the service (node --cpu-prof) into this directory.
    "profile-dir": { type: "string" },
    // Runs the service from its TypeScript under tsx instead of dist/ as `npm start` does (ADR 0280).
    source: { type: "boolean", default: false },
  },
});
const MEMORIES = Number(values.memories);
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);
const MIXED_SECONDS = Number(values["mixed-seconds"]);
const ADMIN_URL =
  values["database-url"] ?? (process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres");
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// A database and data directory of this run's own, dropped at the end.
const dbName = `memory_bench_load_${randomBytes(4).toString("hex")}`;
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
await admin.unsafe(`create database "${dbName}"`);
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
const dataDir = await mkdtemp(join(tmpdir(), "memory-bench-load-"));
let child: ReturnType<typeof spawnService> | undefined;

async function cleanUp(): Promise<void> {
  // SIGTERM first: a clean stop writes the CPU profile; SIGKILL if it does not stop in time.
  child?.child.kill("SIGTERM");
  const killer = setTimeout(() => child?.child.kill("SIGKILL"), 20_000);
  await child?.exited;
  clearTimeout(killer);
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}

try {
  // 1. Fill.
  const fillStarted = performance.now();
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LEXICON_CACHE_DIR: values["lexicon-cache"] };
  const config = loadConfig({ ...env, LOG_LEVEL: "warn" });
  const logger = createLogger("warn");
  const storage = await startStorage(config, logger);
  const models = await loadModels(config, logger, { lexiconCacheDirectory: values["lexicon-cache"] });
  const { db, vectors } = storage;
  const tenant = await createTenant(db.sql, {
    slug: `bench-load-${randomBytes(3).toString("hex")}`,
    name: "bench load",
    plan: "api",
    // No limit of the plan may shape the figures (MCP has its own per-IP limit on the api plan).
    limitsOverride: {
      requestsPerMinutePerToken: 10_000_000,
      memoryLimit: null,
      mcpRequestsPerMinutePerIp: null,
    },
  });
  const { token } = await issueApiToken(db.sql, { tenantId: tenant.id, name: "bench", scopes: ["read"] });
  const writer = await issueApiToken(db.sql, {
    tenantId: tenant.id,
    name: "bench mixed",
    scopes: ["read", "write"],
  });
  const corpus = await loadSyntheticCorpus(values["eval-dir"]);
  const embedder = models.embedder;
  await fillSyntheticMemories(storage, embedder, tenant.id, corpus, MEMORIES, (filled) => {
    if ((filled / 500) % 4 === 1) log(`filled ${filled} / ${MEMORIES}`);
  });
  const maintained = await maintainVectorTable(vectors, tenant.id, embedder.id);
  log(`vector table: ${JSON.stringify(maintained)}`);
  await models.close();
  await storage.stop();
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  log(`filled ${MEMORIES} memories in ${round(fillSeconds)} s`);

  // 2. The service as `npm start` runs it, on that data.
  const port = await freePort();
  const metricsPort = await freePort();
  child = spawnService(
    {
      ...env,
      PORT: String(port),
      GRPC_PORT: String(await freePort()),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "warn",
    },
    {
      compiled: !values.source,
      ...(values["profile-dir"]
        ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${values["profile-dir"]}`] }
        : {}),
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, 180_000).catch((error: unknown) => {
    // The service's own output says why it never became healthy.
    process.stderr.write(child?.output() ?? "");
    throw error;
  });
  const pid = child.child.pid ?? 0;
  const rssMb = async () => {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  };
  const pgConnections = async () => {
    const [row] = await admin<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = ${dbName}`;
    return row?.n ?? 0;
  };
  const questions = (await readEvalDataset(join(values["eval-dir"], "xquad_de"))).queries.map((q) => q.text);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const bodies = questions.slice(0, 200).map((query) => JSON.stringify({ query, k: 10 }));
  const run = (connections: number, options: { amount?: number; duration?: number }) => {
    const samples: number[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    return new Promise<{ result: autocannon.Result; samples: number[]; statuses: Map<number, number> }>(
      (resolve, reject) => {
        const instance = autocannon(
          {
            url: `${base}/api/memory/recall`,
            method: "POST",
            headers,
            connections,
            timeout: 30,
            ...options,
            requests: [
              {
                setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] ?? "{}" }),
              },
            ],
          },
          (error, result) => (error ? reject(error) : resolve({ result, samples, statuses })),
        );
        instance.on("response", (_client, statusCode, _bytes, responseTime) => {
          samples.push(responseTime);
          statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
        });
      },
    );
  };
  /** Mean seconds per recall stage so far, from the service's own /metrics. */
  const stageSums = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const sums = new Map<string, { sum: number; count: number }>();
    for (const m of text.matchAll(
      /^memory_recall_stage_duration_seconds_(sum|count)\{stage="([^"]+)"\} (\S+)$/gm,
    )) {
      const entry = sums.get(m[2] ?? "") ?? { sum: 0, count: 0 };
      if (m[1] === "sum") entry.sum = Number(m[3]);
      else entry.count = Number(m[3]);
      sums.set(m[2] ?? "", entry);
    }
    return sums;
  };
  log("warm-up");
  await run(4, { amount: 200 });
  const warmSeconds = Number(values["warm-seconds"]);
  if (warmSeconds > 0) await run(CONNECTIONS, { duration: warmSeconds });
  // One connection: the latency of a recall on an otherwise idle service (CPU cost per request).
  const single = await run(1, { amount: 100 });
  const singleSorted = single.samples.sort((a, b) => a - b);
  const oneConnection = {
    requestsPerSecond: round(single.samples.length / single.result.duration),
    p50Ms: round(percentile(singleSorted, 50)),
    p99Ms: round(percentile(singleSorted, 99)),
  };
  log(`1 connection: ${JSON.stringify(oneConnection)}`);
  const stagesBefore = await stageSums();
  const start = { rssMb: await rssMb(), pgConnections: await pgConnections(), loadAverage: loadavg()[0] };
  log(`load: ${CONNECTIONS} connections for ${SECONDS} s`);
  // RSS every 5 s: tells growth that levels off (allocator arenas, caches) from a leak.
  const rssTimeline: number[] = [start.rssMb];
  const sampler = setInterval(() => {
    rssMb().then(
      (mb) => rssTimeline.push(mb),
      () => undefined,
    );
  }, 5_000);
  const calibration = await calibrationMs();
  log(`calibration: ${calibration} ms`);
  const cpuBefore = await cpuSnapshot(pid);
  const { result, samples, statuses } = await run(CONNECTIONS, { duration: SECONDS }).finally(() =>
    clearInterval(sampler),
  );
  // CPU per recall: comparable across hours of a shared machine where req/s is not.
  const cpu = cpuPerRequest(cpuBefore, await cpuSnapshot(pid), samples.length);
  // Connections still draining count in full; give the pool a moment to settle before reading it.
  await new Promise((r) => setTimeout(r, 1000));
  const end = { rssMb: await rssMb(), pgConnections: await pgConnections(), loadAverage: loadavg()[0] };
  const stagesAfter = await stageSums();
  const stageMeanMs = Object.fromEntries(
    [...stagesAfter].map(([stage, after]) => {
      const before = stagesBefore.get(stage) ?? { sum: 0, count: 0 };
      const count = after.count - before.count;
      return [stage, count > 0 ? round(((after.sum - before.sum) / count) * 1000) : 0];
    }),
  );
  const sorted = samples.sort((a, b) => a - b);
  const seconds = result.duration;
  const ok = statuses.get(200) ?? 0;
  const figures = {
    requests: samples.length,
    requestsPerSecond: round(samples.length / seconds),
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
    non2xx: samples.length - ok,
    statuses: Object.fromEntries(statuses),
    errors: result.errors,
    timeouts: result.timeouts,
  };
  const targets = {
    requestsPerSecond: 150,
    p99Ms: 500,
    met:
      figures.requestsPerSecond >= 150 &&
      figures.p99Ms <= 500 &&
      figures.non2xx === 0 &&
      figures.errors === 0,
    rssFlat: Math.abs(end.rssMb - start.rssMb) <= 0.1 * start.rssMb,
  };
  log(
    JSON.stringify({ figures, cpu, oneConnection, stageMeanMs, start, end, rssTimeline, targets }, null, 2),
  );
  let mixed: Record<string, unknown> | undefined;
  if (MIXED_SECONDS > 0) {
    log(`mixed: ${CONNECTIONS} connections for ${MIXED_SECONDS} s`);
    const mixedStart = { rssMb: await rssMb(), pgConnections: await pgConnections() };
    const result = await runMixedLoad({
      base,
      token: writer.token,
      connections: CONNECTIONS,
      seconds: MIXED_SECONDS,
      queries: questions,
      content: (n) => `${corpus.chunk(MEMORIES + n)} (Lastlauf ${dbName}, Nr. ${n})`,
    });
    await new Promise((r) => setTimeout(r, 1000));
    const mixedEnd = { rssMb: await rssMb(), pgConnections: await pgConnections() };
    mixed = { ...result, service: { start: mixedStart, end: mixedEnd } };
    log(JSON.stringify(mixed, null, 2));
  }
  writeBenchResult(values.out, {
    what: "POST /api/memory/recall through REST against `npm start` (child process), autocannon",
    runs: values.source ? "TypeScript under tsx" : "dist/ (npm start)",
    memories: MEMORIES,
    connections: CONNECTIONS,
    seconds: round(seconds),
    fillSeconds: round(fillSeconds),
    embedder: embedder.id,
    vectorTable: maintained,
    figures,
    cpuPerRecall: cpu,
    calibrationMs: calibration,
    oneConnection,
    stageMeanMs,
    service: { start, end, rssTimelineMb: rssTimeline },
    targets,
    ...(mixed === undefined ? {} : { mixed }),
  });
} finally {
  await cleanUp();
}
