import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueApiToken } from "../core/tenancy/api-tokens.js";
import { maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { testModels } from "../test/graph/graph-test-kit.js";
import { startTestService, type TestService } from "../test/helpers/test-service.js";
import { cookieHeader, freshIp, signInWithWorkspace } from "../test/tenancy/sign-in-helper.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:lifecycle` (issue 20 "Measure"): export and import of a workspace of MEMORIES memory
// versions through the real REST routes (time, peak RSS of this process, which runs the service; the
// HTTP client runs in a process of its own, bench/lifecycle-client.ts), then erasure of
// ERASE_VERSIONS versions (ERASE_VERSIONS / 10 lineages of 10 versions each) through
// DELETE /api/v1/memories/{id}. Sizes: LIFECYCLE_MEMORIES (default 100000) and
// LIFECYCLE_ERASE_VERSIONS (default 10000). The embedder is the tests' word-hash embedder, so the
// import figure is the pipeline (parse, chunk, PostgreSQL, BM25 triggers, LanceDB) without model
// time; with the built-in embedder add its throughput (docs/models.md) for every chunk.

const MEMORIES = Number(process.env.LIFECYCLE_MEMORIES ?? 100_000);
const ERASE_VERSIONS = Math.min(Number(process.env.LIFECYCLE_ERASE_VERSIONS ?? 10_000), MEMORIES);
// 0: export and import only, written to bench/results/lifecycle-import.json.
const VERSIONS_PER_LINEAGE = 10;
const LINKS = Math.floor(MEMORIES / 10);

const log = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * The part of RSS that maps files (the code of node, its add-ons and LanceDB's library as far as it
 * ran): counted in RSS, but clean pages the kernel can drop and share. 0 where /proc is missing.
 */
function fileBackedRss(): number {
  try {
    const rollup = readFileSync("/proc/self/smaps_rollup", "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
    return (kb("Rss") - kb("Anonymous")) * 1024;
  } catch {
    return 0;
  }
}

/** Samples the process's RSS every 20 ms while `run` runs; returns its result, time and peak. */
async function measured<T>(run: () => Promise<T>): Promise<{
  result: T;
  ms: number;
  peakRssMb: number;
  startRssMb: number;
  peakHeapMb: number;
  peakExternalMb: number;
  atPeak: {
    heapTotalMb: number;
    heapUsedMb: number;
    externalMb: number;
    arrayBuffersMb: number;
    nativeMb: number;
    fileBackedMb: number;
  };
}> {
  const startRss = process.memoryUsage.rss();
  let peak = startRss;
  let peakHeap = 0;
  let peakExternal = 0;
  // The sample at the RSS peak, split: V8 heap (reserved), external (Buffers, Arrow memory held by JS)
  // and the rest (native: code, thread stacks, LanceDB's and the allocator's memory).
  let atPeak = {
    heapTotalMb: 0,
    heapUsedMb: 0,
    externalMb: 0,
    arrayBuffersMb: 0,
    nativeMb: 0,
    fileBackedMb: 0,
  };
  const trace = process.env.LIFECYCLE_TRACE ? 0 : -1;
  let ticks = trace;
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > peak)
      atPeak = {
        heapTotalMb: mb(usage.heapTotal),
        heapUsedMb: mb(usage.heapUsed),
        externalMb: mb(usage.external),
        arrayBuffersMb: mb(usage.arrayBuffers),
        nativeMb: mb(usage.rss - usage.heapTotal - usage.external),
        fileBackedMb: mb(fileBackedRss()),
      };
    peak = Math.max(peak, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapTotal);
    peakExternal = Math.max(peakExternal, usage.external);
    if (ticks >= 0 && ticks++ % 50 === 0)
      log(
        `  rss ${mb(usage.rss)} (files ${mb(fileBackedRss())}) heap ${mb(usage.heapUsed)}/${mb(usage.heapTotal)} external ${mb(usage.external)} arrayBuffers ${mb(usage.arrayBuffers)} native ${mb(usage.rss - usage.heapTotal - usage.external)} MB`,
      );
  }, 20);
  // Diagnostic (NODE_OPTIONS=--expose-gc LIFECYCLE_GC_PROBE=1): the live heap after a full GC.
  const gc = (globalThis as { gc?: () => void }).gc;
  const probe =
    process.env.LIFECYCLE_GC_PROBE && gc
      ? setInterval(() => {
          gc();
          const u = process.memoryUsage();
          log(`  live heap ${mb(u.heapUsed)} MB, external ${mb(u.external)} MB, rss ${mb(u.rss)} MB`);
        }, 2000)
      : undefined;
  const started = performance.now();
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      result,
      ms: Math.round(performance.now() - started),
      peakRssMb: mb(peak),
      startRssMb: mb(startRss),
      peakHeapMb: mb(peakHeap),
      peakExternalMb: mb(peakExternal),
      atPeak,
    };
  } finally {
    clearInterval(timer);
    clearInterval(probe);
  }
}

/** bench/lifecycle-client.ts in its own process: the RSS sampled here is the service's alone. */
async function runClient(
  mode: "export" | "import",
  url: string,
  headers: Record<string, string>,
  file: string,
): Promise<{ status: number; body: unknown }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "bench/lifecycle-client.ts", mode, url, JSON.stringify(headers), file],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the ${mode} client exited with ${code}`);
  return JSON.parse(out) as { status: number; body: unknown };
}

async function seed(service: TestService, tenantId: string): Promise<void> {
  const sql = service.storage.db.sql;
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
  const service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { TRUST_PROXY: "true", LOG_LEVEL: "info" },
  });
  try {
    const source = await signInWithWorkspace(service, "api");
    let started = performance.now();
    await seed(service, source.tenantId);
    log(`seeded ${MEMORIES} versions and ${LINKS} links in ${Math.round(performance.now() - started)} ms`);

    const file = join(dir, "bundle.json");
    const exported = await measured(async () => {
      const res = await runClient(
        "export",
        `${service.httpUrl}/api/tenant/export`,
        {
          "x-forwarded-for": freshIp(),
          ...cookieHeader(source.session),
        },
        file,
      );
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${JSON.stringify(res.body)}`);
    });
    const bytes = (await stat(file)).size;
    log(
      `export: ${exported.ms} ms, ${mb(bytes)} MB, RSS ${exported.startRssMb} → peak ${exported.peakRssMb} MB`,
    );

    const target = await signInWithWorkspace(service, "api");
    const imported = await measured(async () => {
      const res = await runClient(
        "import",
        `${service.httpUrl}/api/tenant/import`,
        {
          "x-forwarded-for": freshIp(),
          ...cookieHeader(target.session),
        },
        file,
      );
      if (res.status !== 200) throw new Error(`import answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as Record<string, unknown>;
    });
    log(
      `import: ${imported.ms} ms, RSS ${imported.startRssMb} → peak ${imported.peakRssMb} MB (V8 heap ≤ ${imported.peakHeapMb} MB, external ≤ ${imported.peakExternalMb} MB; at the peak ${JSON.stringify(imported.atPeak)}), ${JSON.stringify(imported.result)}`,
    );
    if (ERASE_VERSIONS === 0) {
      // LIFECYCLE_ERASE_VERSIONS=0: export and import only (no index build, no erasure).
      writeBenchResult("lifecycle-import", {
        memories: MEMORIES,
        links: LINKS,
        embedder: "word-hash test embedder (no model time)",
        nodeOptions: process.env.NODE_OPTIONS ?? "",
        export: { ms: exported.ms, bytes, peakRssMb: exported.peakRssMb, startRssMb: exported.startRssMb },
        import: {
          ms: imported.ms,
          peakRssMb: imported.peakRssMb,
          startRssMb: imported.startRssMb,
          peakHeapMb: imported.peakHeapMb,
          peakExternalMb: imported.peakExternalMb,
          atPeak: imported.atPeak,
        },
      });
      return;
    }
    // What the worker's maintain-vectors job (enqueued by the import) does: compact the fragments
    // every batch appended, build the ANN index from 1,200 rows. Run inline (worker: false here).
    const space = (await service.storage.vectors.spaces(target.tenantId))[0] ?? "";
    const maintain = await measured(() =>
      maintainVectorTable(service.storage.vectors, target.tenantId, space),
    );
    const maintainMs = maintain.ms;
    log(
      `maintain vectors after import: ${maintainMs} ms, RSS peak ${maintain.peakRssMb} MB ${JSON.stringify(maintain.result)}`,
    );

    // Erase the 10-version lineages of the imported workspace, four requests at a time.
    // The bench measures erasure, not the per-token rate limit.
    await service.storage.db.sql`
      update tenants set limits_override = ${service.storage.db.sql.json({ requestsPerMinutePerToken: 10_000_000 })}
      where id = ${target.tenantId}`;
    const { token } = await issueApiToken(service.storage.db.sql, {
      tenantId: target.tenantId,
      name: "admin",
      scopes: ["read", "write", "admin"],
    });
    const ids = (
      await service.storage.db.sql<{ id: string }[]>`
        select distinct on (lineage_id) id from memories
        where tenant_id = ${target.tenantId}
          and lineage_id in (select lineage_id from memories where tenant_id = ${target.tenantId}
                             group by lineage_id having count(*) = ${VERSIONS_PER_LINEAGE})
        order by lineage_id, recorded_at`
    ).map((r) => r.id);
    const latencies: number[] = [];
    let versions = 0;
    const erased = await measured(async () => {
      let next = 0;
      const workerLoop = async () => {
        while (next < ids.length) {
          const id = ids[next++];
          const t0 = performance.now();
          const res = await fetch(`${service.httpUrl}/api/v1/memories/${id}`, {
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
    const phases = service.logLines
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
    const [purgeReport] = await Promise.all([
      import("../core/memories/purge-erased.js").then((m) =>
        m.purgeErased({ db: service.storage.db, vectors: service.storage.vectors }, target.tenantId),
      ),
    ]);
    const purgeMs = Math.round(performance.now() - started);
    log(`purge (worker job, run inline): ${purgeMs} ms ${JSON.stringify(purgeReport)}`);

    writeBenchResult("lifecycle", {
      memories: MEMORIES,
      links: LINKS,
      embedder: "word-hash test embedder (no model time)",
      nodeOptions: process.env.NODE_OPTIONS ?? "",
      export: { ms: exported.ms, bytes, peakRssMb: exported.peakRssMb, startRssMb: exported.startRssMb },
      import: {
        ms: imported.ms,
        peakRssMb: imported.peakRssMb,
        startRssMb: imported.startRssMb,
        peakHeapMb: imported.peakHeapMb,
        peakExternalMb: imported.peakExternalMb,
        atPeak: imported.atPeak,
        result: imported.result,
      },
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
      maintainAfterImportMs: maintainMs,
      maintainAfterImportPeakRssMb: maintain.peakRssMb,
    });
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
