import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import { purgeErased } from "../core/memories/index.js";
import { type Storage, startStorage } from "../core/start-storage.js";
import type { Sql } from "../core/store/database.js";
import { issueApiToken } from "../core/tenancy/api-tokens.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { freePort } from "../test/helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../test/helpers/lexicon-cache.js";
import { spawnService, waitForHealth } from "../test/helpers/service-process.js";
import { cookieHeader, freshIp, signInWithWorkspace } from "../test/tenancy/sign-in-helper.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:lifecycle` (issue 20 "Measure"): export and import of a workspace of MEMORIES memory
// versions through the real REST routes of the service as `npm start` runs it (dist/, a child
// process with the built-in embedder and WORKER=false; time and peak RSS of that process; the HTTP
// client runs in a process of its own, bench/lifecycle-client.ts), then erasure of
// ERASE_VERSIONS versions (ERASE_VERSIONS / 10 lineages of 10 versions each) through
// DELETE /api/v1/memories/{id}. Sizes: LIFECYCLE_MEMORIES (default 100000) and
// LIFECYCLE_ERASE_VERSIONS (default 10000). The import re-embeds every chunk with the built-in
// embedder (the product's default), so its time includes model time. Until 2026-11-28 the service
// ran inside this process under tsx with the tests' word-hash embedder (results before that date).

const MEMORIES = Number(process.env.LIFECYCLE_MEMORIES ?? 100_000);
const ERASE_VERSIONS = Math.min(Number(process.env.LIFECYCLE_ERASE_VERSIONS ?? 10_000), MEMORIES);
// 0: export and import only, written to bench/results/lifecycle-import.json.
const VERSIONS_PER_LINEAGE = 10;
const LINKS = Math.floor(MEMORIES / 10);
const ADMIN_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** VmRSS, RssAnon, RssFile and VmHWM of a process, in bytes, from /proc/<pid>/status. */
async function processMemory(pid: number): Promise<{ rss: number; anon: number; file: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile"), hwm: kb("VmHWM") };
}

/**
 * Runs `run` while watching the service process `pid`: its peak RSS is the kernel's high-water mark
 * (VmHWM, reset before the run through /proc/<pid>/clear_refs, so nothing is missed between samples),
 * and a sample every 20 ms tells how the peak splits into anonymous memory (heap, native) and mapped
 * files (code pages, clean and reclaimable).
 */
async function measured<T>(
  pid: number,
  run: () => Promise<T>,
  metricsUrl?: string,
): Promise<{
  result: T;
  ms: number;
  peakRssMb: number;
  startRssMb: number;
  atPeak: { anonMb: number; fileBackedMb: number };
  /** The largest V8 heap (reserved) and external memory the service's /metrics reported meanwhile. */
  peakHeapTotalMb?: number;
  peakExternalMb?: number;
}> {
  // "5" resets the peak RSS to the current RSS (Linux ≥ 4.0; needs the right to write the file).
  const hwmReset = await writeFile(`/proc/${pid}/clear_refs`, "5").then(
    () => true,
    () => false,
  );
  const start = await processMemory(pid);
  let sampledPeak = start;
  const timer = setInterval(() => {
    processMemory(pid).then(
      (m) => {
        if (m.rss > sampledPeak.rss) sampledPeak = m;
      },
      () => undefined,
    );
  }, 20);
  let peakHeapTotal = 0;
  let peakExternal = 0;
  const heapTimer =
    metricsUrl === undefined
      ? undefined
      : setInterval(() => {
          fetch(metricsUrl)
            .then((res) => res.text())
            .then((text) => {
              const value = (name: string) =>
                Number(new RegExp(`^\\w*${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? 0);
              peakHeapTotal = Math.max(peakHeapTotal, value("nodejs_heap_size_total_bytes"));
              peakExternal = Math.max(peakExternal, value("nodejs_external_memory_bytes"));
            })
            .catch(() => undefined);
        }, 250);
  const started = performance.now();
  try {
    const result = await run();
    const end = await processMemory(pid);
    const peak = hwmReset ? Math.max(end.hwm, sampledPeak.rss) : Math.max(end.rss, sampledPeak.rss);
    return {
      result,
      ms: Math.round(performance.now() - started),
      peakRssMb: mb(peak),
      startRssMb: mb(start.rss),
      atPeak: { anonMb: mb(sampledPeak.anon), fileBackedMb: mb(sampledPeak.file) },
      ...(metricsUrl === undefined
        ? {}
        : { peakHeapTotalMb: mb(peakHeapTotal), peakExternalMb: mb(peakExternal) }),
    };
  } finally {
    clearInterval(timer);
    clearInterval(heapTimer);
  }
}

/**
 * GET /api/tenant/export into `file` or POST /api/tenant/import from it, as the session's owner,
 * through bench/lifecycle-client.ts in its own process (so the service's RSS is measured alone);
 * the answer's body, or an error unless 200.
 */
async function runClient(
  mode: "export" | "import",
  base: string,
  session: string,
  file: string,
): Promise<unknown> {
  const headers = { "x-forwarded-for": freshIp(), ...cookieHeader(session) };
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "bench/lifecycle-client.ts",
      mode,
      `${base}/api/tenant/${mode}`,
      JSON.stringify(headers),
      file,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the ${mode} client exited with ${code}`);
  const { status, body } = JSON.parse(out) as { status: number; body: unknown };
  if (status !== 200) throw new Error(`${mode} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

async function seed(sql: Sql, tenantId: string): Promise<void> {
  const lineages = ERASE_VERSIONS / VERSIONS_PER_LINEAGE;
  // Versions 1..ERASE_VERSIONS form lineages of 10 (chained valid time); the rest stand alone.
  await sql`
    with v as (
      select i,
             case when i <= ${ERASE_VERSIONS} then (i - 1) / ${VERSIONS_PER_LINEAGE} else ${lineages} + i end as lineage,
             case when i <= ${ERASE_VERSIONS} then (i - 1) % ${VERSIONS_PER_LINEAGE} else 0 end as version
      from generate_series(1, ${MEMORIES}) i
    ), l as (select lineage, gen_random_uuid() as lineage_id from (select distinct lineage from v) d)
    insert into memories (tenant_id, lineage_id, kind, memory_type, title, content, content_sha256, status,
                          valid_from, valid_to, recorded_at, created_at, updated_at)
    select ${tenantId}::uuid, l.lineage_id, 'entry', 'semantic', 'Erinnerung ' || v.lineage,
           'Erinnerung ' || v.i || ' über Kunde ' || (v.lineage % 997) || ': ' || repeat(md5(v.i::text) || ' ', 6),
           sha256(convert_to('c' || v.i, 'UTF8')), 'indexed',
           timestamptz '2025-01-01' + make_interval(mins => v.version),
           case when v.i <= ${ERASE_VERSIONS} and v.version < ${VERSIONS_PER_LINEAGE - 1}
                then timestamptz '2025-01-01' + make_interval(mins => v.version + 1) end,
           timestamptz '2025-01-01' + make_interval(secs => v.i), timestamptz '2025-01-01' + make_interval(secs => v.i),
           timestamptz '2025-01-01' + make_interval(secs => v.i)
    from v join l using (lineage)`;
  // LINKS links between current versions, both directions, each the other's inverse.
  await sql`
    with cur as (
      select id, row_number() over (order by created_at) as n from memories
      where tenant_id = ${tenantId} and valid_to is null
    ), pairs as (
      select a.id as a, b.id as b, gen_random_uuid() as e1, gen_random_uuid() as e2
      from generate_series(1, ${LINKS}) k
      join cur a on a.n = k join cur b on b.n = k + 1
    )
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of)
    select e1, ${tenantId}::uuid, a, b, 'RELATED_TO', e2 from pairs
    union all
    select e2, ${tenantId}::uuid, b, a, 'RELATED_TO', e1 from pairs`;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "bench-lifecycle-"));
  // A database and data directory of this run's own; the service runs as `npm start` runs it (dist/,
  // a child process, the built-in embedder), without its worker: the worker's part (vector
  // maintenance, purge) runs in this process, so the service's RSS is the import's alone.
  const dbName = `memory_bench_lifecycle_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${dbName}"`);
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
  const dataDir = join(dir, "data");
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    PORT: String(await freePort()),
    GRPC_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    TRUST_PROXY: "true",
    // Sign-in links are delivered to the log (no SMTP_URL); the bench reads them there.
    LOG_LEVEL: "info",
    WORKER: "false",
  };
  const child = spawnService(env, { compiled: true });
  const base = `http://127.0.0.1:${env.PORT}`;
  const metricsUrl = `http://127.0.0.1:${env.METRICS_PORT}/metrics`;
  const config = loadConfig({ ...env, LOG_LEVEL: "warn" });
  let storage: Storage | undefined;
  try {
    await waitForHealth(base, 180_000).catch((error: unknown) => {
      process.stderr.write(child.output());
      throw error;
    });
    const pid = child.child.pid ?? 0;
    storage = await startStorage(config, createLogger("warn"));
    const sql = storage.db.sql;
    const logLines = () =>
      child
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"));
    const service = {
      httpUrl: base,
      get logLines() {
        return logLines();
      },
      storage: { db: { sql } },
    };
    const source = await signInWithWorkspace(service, "api");
    let started = performance.now();
    await seed(sql, source.tenantId);
    log(`seeded ${MEMORIES} versions and ${LINKS} links in ${Math.round(performance.now() - started)} ms`);

    const file = join(dir, "bundle.json");
    const exported = await measured(pid, () => runClient("export", base, source.session, file), metricsUrl);
    const bytes = (await stat(file)).size;
    log(
      `export: ${exported.ms} ms, ${mb(bytes)} MB, RSS ${exported.startRssMb} → peak ${exported.peakRssMb} MB`,
    );

    const target = await signInWithWorkspace(service, "api");
    const imported = await measured(
      pid,
      async () => (await runClient("import", base, target.session, file)) as Record<string, unknown>,
      metricsUrl,
    );
    log(
      `import: ${imported.ms} ms, RSS ${imported.startRssMb} → peak ${imported.peakRssMb} MB (at the peak ${JSON.stringify(imported.atPeak)}; V8 heap ≤ ${imported.peakHeapTotalMb} MB, external ≤ ${imported.peakExternalMb} MB), ${JSON.stringify(imported.result)}`,
    );
    const common = {
      memories: MEMORIES,
      links: LINKS,
      service: "dist/apps/all-in-one.js (npm start) with WORKER=false, in a child process",
      nodeOptions: process.env.NODE_OPTIONS ?? "",
      embedder: String(imported.result.embedder ?? "built-in (the default)"),
      export: { ms: exported.ms, bytes, peakRssMb: exported.peakRssMb, startRssMb: exported.startRssMb },
      import: {
        ms: imported.ms,
        peakRssMb: imported.peakRssMb,
        startRssMb: imported.startRssMb,
        atPeak: imported.atPeak,
        peakHeapTotalMb: imported.peakHeapTotalMb,
        peakExternalMb: imported.peakExternalMb,
        result: imported.result,
      },
    };
    if (ERASE_VERSIONS === 0) {
      // LIFECYCLE_ERASE_VERSIONS=0: export and import only (no index build, no erasure).
      writeBenchResult("lifecycle-import", common);
      return;
    }
    // What the worker's maintain-vectors job (enqueued by the import) does: compact the fragments
    // every batch appended, build the ANN index from 1,200 rows. Run here, as the worker would.
    const vectors = storage.vectors;
    const space = (await vectors.spaces(target.tenantId))[0] ?? "";
    // Measured in this process, where it runs.
    const maintain = await measured(process.pid, () => maintainVectorTable(vectors, target.tenantId, space));
    log(
      `maintain vectors after import: ${maintain.ms} ms, RSS peak ${maintain.peakRssMb} MB ${JSON.stringify(maintain.result)}`,
    );

    // Erase the 10-version lineages of the imported workspace, four requests at a time.
    // The bench measures erasure, not the per-token rate limit.
    await sql`
      update tenants set limits_override = ${sql.json({ requestsPerMinutePerToken: 10_000_000 })}
      where id = ${target.tenantId}`;
    const { token } = await issueApiToken(sql, {
      tenantId: target.tenantId,
      name: "admin",
      scopes: ["read", "write", "admin"],
    });
    const ids = (
      await sql<{ id: string }[]>`
        select distinct on (lineage_id) id from memories
        where tenant_id = ${target.tenantId}
          and lineage_id in (select lineage_id from memories where tenant_id = ${target.tenantId}
                             group by lineage_id having count(*) = ${VERSIONS_PER_LINEAGE})
        order by lineage_id, recorded_at`
    ).map((r) => r.id);
    const latencies: number[] = [];
    let versions = 0;
    const erased = await measured(pid, async () => {
      let next = 0;
      const workerLoop = async () => {
        while (next < ids.length) {
          const id = ids[next++];
          const t0 = performance.now();
          const res = await fetch(`${base}/api/v1/memories/${id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${token}` },
          });
          const body = (await res.json()) as { versions?: number };
          if (res.status !== 200) throw new Error(`erase answered ${res.status}`);
          versions += body.versions ?? 0;
          latencies.push(performance.now() - t0);
        }
      };
      await Promise.all([workerLoop(), workerLoop(), workerLoop(), workerLoop()]);
    });
    latencies.sort((a, b) => a - b);
    // Core logs each erasure with the time LanceDB's deletes took and its total.
    const phases = logLines()
      .map((l) => JSON.parse(l) as { msg?: string; vectorsMs?: number; totalMs?: number })
      .filter((l) => l.msg === "memory lineage erased");
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const vectorsMedianMs = median(phases.map((p) => p.vectorsMs ?? 0));
    const coreMedianMs = median(phases.map((p) => p.totalMs ?? 0));
    log(`erase in core: median ${coreMedianMs} ms, of which LanceDB deletes ${vectorsMedianMs} ms`);
    const pct = (p: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0);
    log(
      `erase: ${ids.length} lineages, ${versions} versions in ${erased.ms} ms (p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms)`,
    );
    started = performance.now();
    const purgeReport = await purgeErased({ db: storage.db, vectors }, target.tenantId);
    const purgeMs = Math.round(performance.now() - started);
    log(`purge (worker job, run here): ${purgeMs} ms ${JSON.stringify(purgeReport)}`);

    writeBenchResult("lifecycle", {
      ...common,
      erase: {
        lineages: ids.length,
        versions,
        ms: erased.ms,
        concurrency: 4,
        p50Ms: pct(0.5),
        p95Ms: pct(0.95),
        peakRssMb: erased.peakRssMb,
        coreMedianMs,
        lanceDeleteMedianMs: vectorsMedianMs,
      },
      purgeMs,
      maintainAfterImportMs: maintain.ms,
      maintainAfterImportPeakRssMb: maintain.peakRssMb,
    });
  } finally {
    child.child.kill("SIGTERM");
    const killer = setTimeout(() => child.child.kill("SIGKILL"), 20_000);
    await child.exited;
    clearTimeout(killer);
    await storage?.stop();
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
