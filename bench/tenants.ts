/**
 * `npm run bench:tenants` (issue 46 "Measure"): many workspaces on one instance. Recall over REST
 * against the service as `npm start` runs it, with recalls spread over randomly chosen workspaces
 * (Zipf-weighted: a few hot, most cold), and the service's RSS as the number of workspaces touched
 * grows.
 *
 *   npm run bench:tenants -- [--workspaces 1000] [--chunks 500] [--large 100000] [--recalls 3000]
 *
 * 1. Fill (straight into the tables, as bench:load does: minutes of the write path saved): each
 *    small workspace gets `--chunks` one-chunk memories drawn from a pool of synthetic German chunks
 *    (bench/synthetic-corpus.ts; each pool chunk embedded once), one large workspace `--large`.
 * 2. The service starts on that data; `--recalls` recalls with xquad_de questions, each to a
 *    workspace drawn Zipf(s = 1) over all workspaces in a random order (the large one among them):
 *    interleaved p50/p95/p99, RSS sampled every 50 recalls (start, half-way, end, max); then, while
 *    `--bulk` memories go into a workspace of their own through the batch route (4 callers × 100),
 *    the same recalls again (duringBulk).
 * 3. Restart; the large workspace's first recall (coldLargeFirstRecallMs) and its next 20.
 * Targets (issue 46): p95 ≤ 60 ms, p99 ≤ 150 ms, RSS max ≤ 2,048 MB and end within 10 % of half-way,
 * cold large first recall ≤ 250 ms. Writes bench/results/tenants.json.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { startStorage } from "../core/start-storage.js";
import { issueApiToken } from "../core/tenancy/api-tokens.js";
import { createTenant } from "../core/tenancy/tenants.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { freePort } from "../test/helpers/free-port.js";
import { type ServiceProcess, spawnService, waitForHealth } from "../test/helpers/service-process.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { insertIndexedEntries } from "./fill-synthetic-memories.js";
import { createRandom, loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    workspaces: { type: "string", default: "1000" },
    chunks: { type: "string", default: "500" },
    large: { type: "string", default: "100000" },
    recalls: { type: "string", default: "3000" },
    // Memories bulk-loaded over REST into a workspace of their own while Zipf recalls go on (0 skips).
    bulk: { type: "string", default: "50000" },
    pool: { type: "string", default: "20000" },
    "database-url": { type: "string" },
    "eval-dir": { type: "string", default: "../shared/eval" },
    "lexicon-cache": { type: "string", default: join(tmpdir(), "memory-service-lexicon-cache") },
    out: { type: "string", default: "tenants" },
    env: { type: "string", multiple: true, default: [] },
    // Flags for the service's node (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof: where its time goes).
    "node-arg": { type: "string", multiple: true, default: [] },
    // Iterating on the service: --keep leaves the filled database and data directory behind (their
    // names are printed), --reuse DB,DIR starts from them instead of filling again.
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
  },
});
const WORKSPACES = Number(values.workspaces);
const CHUNKS = Number(values.chunks);
const LARGE = Number(values.large);
const RECALLS = Number(values.recalls);
const BULK = Number(values.bulk);
const POOL = Number(values.pool);
const ADMIN_URL =
  values["database-url"] ?? (process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres");
const extraEnv = Object.fromEntries((values.env ?? []).map((kv) => kv.split("=", 2) as [string, string]));
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const summary = (ms: readonly number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
  };
};

/**
 * RSS of the service and of its child processes (the worker's vector-upkeep child, ADR 0560; the
 * file parsers' are threads, counted in the process), so moving work into a child hides nothing.
 */
async function rssMB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  let total = kb / 1024;
  for (const child of await childPids(pid)) total += await rssMB(child);
  return Math.round(total);
}

async function childPids(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "")),
  );
  return lists.flatMap((list) => list.split(" ").filter(Boolean).map(Number));
}

/** V8 heap used and external (ArrayBuffers) in MB, from the service's own metrics. */
async function heapOf(metricsPort: number): Promise<{ used: number; external: number }> {
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const gauge = (name: string) =>
    Math.round(
      Number(new RegExp(`^memory_${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(metrics)?.[1] ?? 0) / 2 ** 20,
    );
  return { used: gauge("nodejs_heap_size_used_bytes"), external: gauge("nodejs_external_memory_bytes") };
}

/** Seconds spent so far per recall stage (the service's recall_stage_duration_seconds sums). */
async function stageSeconds(metricsPort: number): Promise<Map<string, number>> {
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sums = new Map<string, number>();
  for (const m of metrics.matchAll(
    /^memory_recall_stage_duration_seconds_sum\{[^}]*stage="([^"]+)"[^}]*\} (\S+)$/gm,
  ))
    sums.set(m[1] ?? "", Number(m[2]));
  return sums;
}

const [reuseDb, reuseDir] = values.reuse?.split(",") ?? [];
const dbName = reuseDb ?? `memory_bench_tenants_${randomBytes(4).toString("hex")}`;
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
if (!reuseDb) await admin.unsafe(`create database "${dbName}"`);
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
const dataDir = reuseDir ?? (await mkdtemp(join(tmpdir(), "memory-bench-tenants-")));
let child: ServiceProcess | undefined;

async function stopChild(): Promise<void> {
  child?.child.kill("SIGTERM");
  const killer = setTimeout(() => child?.child.kill("SIGKILL"), 20_000);
  await child?.exited;
  clearTimeout(killer);
  child = undefined;
}

try {
  // 1. Fill.
  const fillStarted = performance.now();
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LEXICON_CACHE_DIR: values["lexicon-cache"] };
  const config = loadConfig({ ...env, LOG_LEVEL: "warn" });
  const logger = createLogger("warn");
  const storage = await startStorage(config, logger);
  const tenants: { id: string; token: string; large: boolean }[] = [];
  let largeTenant: { id: string; token: string; large: boolean } | undefined;
  if (reuseDb) {
    const rows = await storage.db.sql<{ id: string; slug: string }[]>`
      select id, slug from tenants where slug like 'bench-%' and slug not like 'bench-bulk-%' order by created_at`;
    for (const row of rows) {
      const { token } = await issueApiToken(storage.db.sql, {
        tenantId: row.id,
        name: "bench",
        scopes: ["read"],
      });
      const large = row.slug === "bench-large";
      tenants.push({ id: row.id, token, large });
      if (large) largeTenant = tenants.at(-1);
    }
    if (largeTenant) {
      tenants.splice(tenants.indexOf(largeTenant), 1);
      tenants.splice(Math.floor(tenants.length / 10), 0, largeTenant);
    }
  } else {
    const models = await loadModels(config, logger, { lexiconCacheDirectory: values["lexicon-cache"] });
    const { db, vectors } = storage;
    const embedder = models.embedder;
    const corpus = await loadSyntheticCorpus(values["eval-dir"]);
    const poolSize = Math.max(POOL, CHUNKS);
    const pool: string[] = Array.from({ length: poolSize }, (_, i) => corpus.chunk(i));
    const poolVectors: Float32Array[] = [];
    for (let start = 0; start < poolSize; start += 500) {
      poolVectors.push(...(await embedder.embed(pool.slice(start, start + 500), "passage")));
    }
    log(`embedded a pool of ${poolSize} chunks in ${round((performance.now() - fillStarted) / 1000)} s`);

    const limits = {
      requestsPerMinutePerToken: 10_000_000,
      memoryLimit: null,
      mcpRequestsPerMinutePerIp: null,
    };
    const fill = async (tenantId: string, count: number, offset: number) => {
      for (let start = 0; start < count; start += 1000) {
        const n = Math.min(1000, count - start);
        const picks = Array.from({ length: n }, (_, i) => (offset + start + i) % poolSize);
        // The large workspace exceeds the pool: its chunks beyond it get a suffix so they are distinct.
        const texts = picks.map((p, i) =>
          start + i < poolSize ? (pool[p] ?? "") : `${pool[p]} (${start + i})`,
        );
        const rows = await insertIndexedEntries(db, tenantId, embedder.id, texts, start);
        await vectors.upsert(
          tenantId,
          embedder.id,
          rows.map((r, i) => ({
            chunkId: r.id,
            memoryId: r.memory_id,
            vector: poolVectors[picks[i] ?? 0] ?? new Float32Array(embedder.dim),
            validFrom: r.valid_from,
            validTo: null,
          })),
        );
      }
      await db.sql`select bm25_compact(${tenantId})`;
      await maintainVectorTable(vectors, tenantId, embedder.id);
    };

    const seed = createRandom(46);
    for (let w = 0; w < WORKSPACES; w++) {
      const tenant = await createTenant(db.sql, {
        slug: `bench-t${w}-${randomBytes(2).toString("hex")}`,
        name: `bench ${w}`,
        plan: "api",
        limitsOverride: limits,
      });
      await fill(tenant.id, CHUNKS, Math.floor(seed() * poolSize));
      const { token } = await issueApiToken(db.sql, { tenantId: tenant.id, name: "bench", scopes: ["read"] });
      tenants.push({ id: tenant.id, token, large: false });
      if ((w + 1) % 100 === 0) log(`filled ${w + 1} / ${WORKSPACES} workspaces`);
    }
    if (LARGE > 0) {
      const tenant = await createTenant(db.sql, {
        slug: "bench-large",
        name: "large",
        plan: "api",
        limitsOverride: limits,
      });
      await fill(tenant.id, LARGE, 0);
      const { token } = await issueApiToken(db.sql, { tenantId: tenant.id, name: "bench", scopes: ["read"] });
      largeTenant = { id: tenant.id, token, large: true };
      // Somewhere in the middle of the Zipf order: neither the hottest nor never touched.
      tenants.splice(Math.floor(tenants.length / 10), 0, largeTenant);
    }
    await db.sql.unsafe("vacuum analyze bm25_term_stats, bm25_stats_delta, chunks, memories");
    await models.close();
  }
  // The workspace the duringBulk phase loads into, with a token that may write.
  const bulkTenant = await createTenant(storage.db.sql, {
    slug: `bench-bulk-${randomBytes(3).toString("hex")}`,
    name: "bulk",
    plan: "api",
    limitsOverride: {
      requestsPerMinutePerToken: 10_000_000,
      memoryLimit: null,
      mcpRequestsPerMinutePerIp: null,
    },
  });
  const bulkToken = (
    await issueApiToken(storage.db.sql, { tenantId: bulkTenant.id, name: "bench", scopes: ["read", "write"] })
  ).token;
  await storage.stop();
  const fillSeconds = round((performance.now() - fillStarted) / 1000);
  log(`filled ${tenants.length} workspaces in ${fillSeconds} s`);

  // 2. The service as `npm start` runs it; interleaved Zipf recalls.
  const port = await freePort();
  const metricsPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const start = async () => {
    child = spawnService(
      {
        ...env,
        PORT: String(port),
        GRPC_PORT: String(await freePort()),
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "warn",
        ...extraEnv,
      },
      { compiled: true, nodeArgs: values["node-arg"] ?? [] },
    );
    await waitForHealth(base, 180_000);
  };
  await start();
  const questions = (await readEvalDataset(join(values["eval-dir"], "xquad_de"))).queries.map((q) => q.text);
  // A 503 (the database watchdog under CPU starvation, a storage fault) is retryable by contract: the
  // bench retries it after Retry-After like a client would, counts it, and times the whole exchange.
  let unavailable = 0;
  // Bulk batches that timed out (504) and were retried with their Idempotency-Key.
  let bulkTimeouts = 0;
  const recall = async (tenant: { token: string }, query: string) => {
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/api/memory/recall`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
        body: JSON.stringify({ query, k: 10 }),
      });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
      if (res.status !== 503 || attempt >= 3) throw new Error(`recall answered ${res.status}`);
      unavailable++;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get("retry-after") ?? 1)));
    }
  };
  const rng = createRandom(4646);
  // Zipf(1) over the workspaces in their (shuffled) order: weight 1/rank.
  const order = [...tenants].sort(() => rng() - 0.5);
  const weights = order.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of weights) {
    acc += w / total;
    cumulative.push(acc);
  }
  const draw = () => {
    const r = rng();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] ?? 1) < r) lo = mid + 1;
      else hi = mid;
    }
    return order[lo] ?? order[0];
  };
  const pid = child?.child.pid;
  const rss = { start: await rssMB(pid), half: 0, end: 0, max: 0 };
  const heapAtStart = await heapOf(metricsPort);
  const interleavedStagesBefore = await stageSeconds(metricsPort);
  const times: number[] = [];
  // A workspace's first recall in this run (its state cold) apart from its later ones.
  const firstTouch: number[] = [];
  const again: number[] = [];
  const touched = new Set<string>();
  const samples: { recalls: number; touched: number; rssMB: number }[] = [];
  for (let i = 0; i < RECALLS; i++) {
    const tenant = draw();
    if (!tenant) continue;
    const first = !touched.has(tenant.id);
    touched.add(tenant.id);
    const ms = await recall(tenant, questions[i % questions.length] ?? "Frage");
    times.push(ms);
    (first ? firstTouch : again).push(ms);
    if ((i + 1) % 50 === 0) {
      const now = await rssMB(pid);
      rss.max = Math.max(rss.max, now);
      samples.push({ recalls: i + 1, touched: touched.size, rssMB: now });
      if (i + 1 === Math.floor(RECALLS / 2 / 50) * 50) rss.half = now;
    }
    if ((i + 1) % 500 === 0) log(`${i + 1} recalls, ${touched.size} workspaces touched, RSS ${rss.max} MB`);
  }
  rss.end = await rssMB(pid);
  rss.max = Math.max(rss.max, rss.end);
  // Where the memory is: V8 heap and external (ArrayBuffers) from the service's own metrics.
  const heapMB = { start: heapAtStart, end: await heapOf(metricsPort) };
  log(`heap: ${JSON.stringify(heapMB)}`);
  const interleaved = {
    ...summary(times),
    // Mean ms per recall and stage (stages that overlap each count in full): to compare with duringBulk.
    stageMeansMs: Object.fromEntries(
      [...(await stageSeconds(metricsPort))].map(([stage, sum]) => [
        stage,
        round(((sum - (interleavedStagesBefore.get(stage) ?? 0)) * 1000) / Math.max(1, times.length), 2),
      ]),
    ),
  };
  log(`interleaved: ${JSON.stringify(interleaved)}; RSS ${JSON.stringify(rss)}`);

  // 2b. Recalls while another workspace is bulk-loaded through the batch route (issue 46 item 4).
  let duringBulk:
    | (ReturnType<typeof summary> & {
        memories: number;
        memoriesPerSecond: number;
        stageMeansMs: Record<string, number>;
        slowest: { ms: number; atSecond: number; firstTouch: boolean; large: boolean }[];
      })
    | undefined;
  if (BULK > 0) {
    const corpus = await loadSyntheticCorpus(values["eval-dir"]);
    const headers = { authorization: `Bearer ${bulkToken}`, "content-type": "application/json" };
    let loading = true;
    const loadStarted = performance.now();
    const CALLERS = 4;
    const loader = async (caller: number) => {
      for (let start = caller * 100; start < BULK; start += 100 * CALLERS) {
        const memories = Array.from({ length: Math.min(100, BULK - start) }, (_, i) => ({
          title: `Bulk ${start + i}`,
          content: `${corpus.chunk(start + i)} (${start + i})`,
          memoryType: "semantic",
        }));
        // As a client should: one key per batch, so a retry after a 503 or a timed-out 504 is never
        // written twice (docs/rest.md).
        const key = randomBytes(12).toString("hex");
        for (let attempt = 0; ; attempt++) {
          const res = await fetch(`${base}/api/v1/memory/entries/batch`, {
            method: "POST",
            headers: { ...headers, "idempotency-key": key },
            body: JSON.stringify({ memories }),
          });
          await res.arrayBuffer();
          if (res.status === 200) break;
          // 409: the timed-out attempt is still being written under this key; ask again shortly.
          if ((res.status !== 503 && res.status !== 504 && res.status !== 409) || attempt >= 10)
            throw new Error(`bulk batch answered ${res.status}`);
          if (res.status === 503) unavailable++;
          else bulkTimeouts++;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    };
    const loaders = Promise.all(Array.from({ length: CALLERS }, (_, c) => loader(c))).finally(() => {
      loading = false;
    });
    // Handled here so a failed load ends the run through `finally` (the service stopped), not as an
    // unhandled rejection that leaves the service running; `await loaders` below still throws.
    loaders.catch(() => undefined);
    const during: number[] = [];
    // The slowest recalls, with when they happened and whether the workspace was new to this run.
    const slowest: { ms: number; atSecond: number; firstTouch: boolean; large: boolean }[] = [];
    const stagesBefore = await stageSeconds(metricsPort);
    let q = 0;
    while (loading) {
      const tenant = draw();
      if (!tenant) continue;
      const firstTouch = !touched.has(tenant.id);
      touched.add(tenant.id);
      const ms = await recall(tenant, questions[q++ % questions.length] ?? "Frage");
      during.push(ms);
      slowest.push({
        ms: round(ms),
        atSecond: round((performance.now() - loadStarted) / 1000),
        firstTouch,
        large: tenant === largeTenant,
      });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
    }
    await loaders;
    const seconds = (performance.now() - loadStarted) / 1000;
    // Mean ms per recall and stage during the load (stages that overlap each count in full).
    const stageMeansMs = Object.fromEntries(
      [...(await stageSeconds(metricsPort))].map(([stage, sum]) => [
        stage,
        round(((sum - (stagesBefore.get(stage) ?? 0)) * 1000) / Math.max(1, during.length), 2),
      ]),
    );
    duringBulk = {
      ...summary(during),
      memories: BULK,
      memoriesPerSecond: round(BULK / seconds),
      stageMeansMs,
      slowest,
    };
    log(`during bulk: ${JSON.stringify(duringBulk)}`);
  }

  // 3. The large workspace after a restart.
  let cold:
    | {
        first: number;
        firstStagesMs: Record<string, number>;
        next: ReturnType<typeof summary>;
        nextSlowest: { ms: number; index: number; atMs: number; stagesMs: Record<string, number> };
      }
    | undefined;
  if (largeTenant) {
    await stopChild();
    await start();
    const before = await stageSeconds(metricsPort);
    const first = await recall(largeTenant, questions[0] ?? "Frage");
    // Where the first recall's time went, stage by stage (stages that overlap each count in full).
    const firstStagesMs = Object.fromEntries(
      [...(await stageSeconds(metricsPort))].map(([stage, sum]) => [
        stage,
        round((sum - (before.get(stage) ?? 0)) * 1000),
      ]),
    );
    const next: number[] = [];
    // The slowest of the next 20, with its stages and when it came: a tail after a restart is either
    // recall's own work or something beside it (the worker, warming).
    let nextSlowest = { ms: 0, index: 0, atMs: 0, stagesMs: {} as Record<string, number> };
    const restarted = performance.now();
    for (let i = 1; i <= 20; i++) {
      const stagesBefore = await stageSeconds(metricsPort);
      const ms = await recall(largeTenant, questions[i] ?? "Frage");
      next.push(ms);
      if (ms > nextSlowest.ms) {
        const stagesMs = Object.fromEntries(
          [...(await stageSeconds(metricsPort))].map(([stage, sum]) => [
            stage,
            round((sum - (stagesBefore.get(stage) ?? 0)) * 1000),
          ]),
        );
        nextSlowest = { ms: round(ms), index: i, atMs: round(performance.now() - restarted), stagesMs };
      }
    }
    cold = { first: round(first), firstStagesMs, next: summary(next), nextSlowest };
    log(
      `cold large: first ${cold.first} ms ${JSON.stringify(firstStagesMs)}, next ${JSON.stringify(cold.next)}, slowest of them ${JSON.stringify(nextSlowest)}`,
    );
    for (const line of (child?.output() ?? "").split("\n"))
      if (/warm|listening|loaded/.test(line)) log(line.slice(0, 400));
  }
  writeBenchResult(values.out ?? "tenants", {
    workspaces: tenants.length,
    chunksPerWorkspace: CHUNKS,
    largeChunks: LARGE,
    recalls: RECALLS,
    touched: touched.size,
    fillSeconds,
    interleaved,
    firstTouch: summary(firstTouch),
    again: summary(again),
    rssMB: rss,
    heapMB,
    rssSamples: samples.filter((_, i) => i % 4 === 3),
    duringBulk: duringBulk ?? null,
    coldLargeFirstRecallMs: cold?.first ?? null,
    coldLargeFirstStagesMs: cold?.firstStagesMs ?? null,
    coldLargeNext: cold?.next ?? null,
    coldLargeNextSlowest: cold?.nextSlowest ?? null,
    unavailable,
    bulkTimeouts,
    env: extraEnv,
    loadAverage: loadavg().map((l) => round(l, 2)),
  });
} finally {
  await stopChild();
  if (values.keep || reuseDb) log(`kept: --reuse ${dbName},${dataDir}`);
  else {
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
  await admin.end();
}
