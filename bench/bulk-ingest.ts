/**
 * Bulk ingest into one tenant through the service's real path (issue #23 "Bulk ingest"): the full
 * service (gRPC, auth, validation, the in-process worker with its vector maintenance) receives
 * `memories` short German memories from `concurrency` callers in a client process of its own
 * (bench/bulk-ingest-client.ts), as an importing program would send them: IngestService.StoreMemories
 * batches of `batch` entries (the default: 8 callers × 100), or with `--batch 1` one
 * IngestService.StoreMemory call per memory (64 callers, the figures before batches existed). Reports
 * end-to-end chunks/s next to the raw embedder rate on the same chunk texts, and what LanceDB holds
 * afterwards: fragments, versions, data and version-manifest bytes.
 *
 *   npm run bench:bulk-ingest -- [--memories 10000] [--batch 100] [--concurrency 8] [--no-settle]
 *                                [--embedder-threads 0]
 *
 * bench/recall.ts runs the same measurement for its bulk-ingest row.
 */
import { spawn } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chunkContent, SETTLE_AFTER_MS } from "../core/memories/index.js";
import { BUILTIN_EMBEDDER_WORKERS, type Models } from "../core/models/load-models.js";
import { vectorTableName } from "../core/vectors/vector-table-name.js";
import { startTestService } from "../test/helpers/test-service.js";
import { loadTestModels } from "../test/ingest/ingest-test-kit.js";
import { type CpuSnapshot, cpuPerRequest, cpuSnapshot } from "./process-cpu.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

/** A LanceDB table as it lies on disk. */
export interface TableOnDisk {
  readonly fragments: number;
  /** Segments of the ANN index (0: none yet): every search visits each (indexSegmentBound). */
  readonly indexSegments: number;
  readonly versions: number;
  readonly dataBytes: number;
  readonly manifestBytes: number;
  readonly manifestPercentOfData: number;
}

/** Batches of 100 entries from 8 callers: 800 memories in flight, as 64 callers × … were before. */
export const BULK_INGEST_DEFAULTS = { batch: 100, concurrency: 8 } as const;

/**
 * CPU per memory during the load, from /proc: the service process (all its threads), PostgreSQL, the
 * client; and how busy the whole machine was (1 = both cores): tells a load held back by CPU from
 * one held back by waiting, and a slower hour of the machine from dearer code.
 */
export interface LoadCpu {
  readonly serviceMs: number;
  /** The service's share by thread: main, node (V8/libuv helpers), tokio-rt-worker (LanceDB), … */
  readonly serviceThreadsMs: Readonly<Record<string, number>>;
  readonly postgresMs: number;
  readonly clientMs: number;
  readonly machineBusyShare: number;
}

export interface BulkIngestResult extends TableOnDisk {
  /** Where the calls came from: a client process of its own since 2026-11-28 (in-process before). */
  readonly client: "own process";
  readonly memories: number;
  readonly concurrency: number;
  /** Entries per call: 1 = StoreMemory, more = StoreMemories batches of that size. */
  readonly batch: number;
  readonly chunks: number;
  readonly ms: number;
  readonly chunksPerSecond: number;
  readonly rawEmbedChunksPerSecond: number;
  /** End-to-end time over raw embedder time on the same chunk texts, in percent. */
  readonly overheadPercent: number;
  readonly cpuPerMemory: LoadCpu;
  /** The rate over the first 10,000 memories against the rest of the load (loads of 20,000 and more). */
  readonly growingRate?: {
    readonly firstMemoriesPerSecond: number;
    readonly laterMemoriesPerSecond: number;
    readonly from: number;
    readonly to: number;
    readonly retained: number;
    readonly marks: readonly { readonly memories: number; readonly seconds: number }[];
  };
  /** The table once the worker's settling maintenance ran after the load (SETTLE_AFTER_MS). */
  readonly settled: TableOnDisk & { readonly afterMs: number };
}

/** The client's clock when the workspace held `memories` of the load's memories. */
export interface ProgressMark {
  readonly memories: number;
  readonly ms: number;
}

/**
 * Memories per second over the first 10,000 and from there to the end, and the second over the first
 * (issue 46 item 4: ≥ 0.8 from 10k to 100k). Empty below 20,000 memories (no second segment).
 */
function rateAsItGrows(marks: readonly ProgressMark[]): Partial<Pick<BulkIngestResult, "growingRate">> {
  const first = marks[0];
  const last = marks.at(-1);
  if (first === undefined || last === undefined || last.memories - first.memories < 10_000) return {};
  const firstRate = first.memories / (first.ms / 1000);
  const laterRate = (last.memories - first.memories) / ((last.ms - first.ms) / 1000);
  return {
    growingRate: {
      firstMemoriesPerSecond: Math.round(firstRate),
      laterMemoriesPerSecond: Math.round(laterRate),
      from: first.memories,
      to: last.memories,
      retained: Math.round((laterRate / firstRate) * 100) / 100,
      marks: marks.map((m) => ({ memories: m.memories, seconds: Math.round(m.ms / 100) / 10 })),
    },
  };
}

async function bytesUnder(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = await bytesUnder(path);
      bytes += inner.bytes;
      files += inner.files;
    } else {
      bytes += (await stat(path)).size;
      files++;
    }
  }
  return { bytes, files };
}

/**
 * bench/bulk-ingest-client.ts in a process of its own; answers the chunks written, the time and the
 * CPU the load took per memory (snapshots when the client's calls start and when they end).
 */
async function runClient(job: {
  grpcUrl: string;
  token: string;
  contents: readonly string[];
  concurrency: number;
  batch: number;
}): Promise<{ chunks: number; ms: number; cpu: LoadCpu; marks: readonly ProgressMark[] }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/bulk-ingest-client.ts"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  let before: Promise<CpuSnapshot> | undefined;
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString("utf8");
    if (!before && out.startsWith("START\n")) before = cpuSnapshot(process.pid);
  });
  child.stdin.end(JSON.stringify(job));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0 || !before) throw new Error(`the bulk-ingest client exited with ${code}`);
  const after = await cpuSnapshot(process.pid);
  const result = JSON.parse(out.slice("START\n".length)) as {
    chunks: number;
    ms: number;
    cpuMs: number;
    marks: ProgressMark[];
  };
  const { serviceMs, postgresMs, machineBusyShare, threadsMs } = cpuPerRequest(
    await before,
    after,
    job.contents.length,
  );
  const clientMs = Math.round((result.cpuMs / job.contents.length) * 100) / 100;
  return {
    chunks: result.chunks,
    ms: result.ms,
    cpu: { serviceMs, serviceThreadsMs: threadsMs, postgresMs, clientMs, machineBusyShare },
    marks: result.marks,
  };
}

export async function measureBulkIngest(
  models: Models,
  options: { memories: number; concurrency: number; evalDir: string; batch?: number; settle?: boolean },
): Promise<BulkIngestResult> {
  const batch = options.batch ?? 1;
  const corpus = await loadSyntheticCorpus(options.evalDir);
  const texts = Array.from({ length: options.memories }, (_, i) => `${corpus.chunk(i)} (${i})`);
  const service = await startTestService({ models });
  try {
    const tenant = await service.createTenant({
      limitsOverride: { requestsPerMinutePerToken: 100_000_000, memoryLimit: null },
    });
    const { chunks, ms, cpu, marks } = await runClient({
      grpcUrl: service.grpcUrl,
      token: tenant.token,
      contents: texts,
      concurrency: options.concurrency,
      batch,
    });
    const embedder = models.embedder;
    const chunkTexts = texts.flatMap((content, i) =>
      chunkContent({ title: `Notiz ${i}`, content }, embedder).map((c) => c.indexText),
    );
    const rawStarted = performance.now();
    for (let i = 0; i < chunkTexts.length; i += 256)
      await embedder.embed(chunkTexts.slice(i, i + 256), "passage");
    const rawMs = performance.now() - rawStarted;
    const table = await service.storage.vectors.openTable(tenant.tenantId, embedder.id);
    const dir = join(service.dataDir, "lancedb", `${vectorTableName(tenant.tenantId, embedder.id)}.lance`);
    const onDisk = async (): Promise<TableOnDisk> => {
      const data = await bytesUnder(join(dir, "data"));
      const manifests = await bytesUnder(join(dir, "_versions"));
      return {
        fragments: (await table?.stats())?.fragmentStats.numFragments ?? 0,
        indexSegments: (await table?.indexStats("vector_idx"))?.numIndices ?? 0,
        versions: manifests.files,
        dataBytes: data.bytes,
        manifestBytes: manifests.bytes,
        manifestPercentOfData: Math.round((manifests.bytes / Math.max(1, data.bytes)) * 1000) / 10,
      };
    };
    const right = await onDisk();
    // The worker's settling run comes SETTLE_AFTER_MS after the last maintenance request; wait for
    // it (at most twice that) as a user whose load has ended would.
    const loadEnded = performance.now();
    let settled = right;
    while (options.settle !== false && performance.now() - loadEnded < 2 * SETTLE_AFTER_MS + 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      settled = await onDisk();
      if (settled.versions <= 2) break;
    }
    const settledAfterMs = Math.round(performance.now() - loadEnded);
    return {
      client: "own process",
      memories: options.memories,
      concurrency: options.concurrency,
      batch,
      chunks,
      ms: Math.round(ms),
      chunksPerSecond: Math.round((chunks / ms) * 1000),
      rawEmbedChunksPerSecond: Math.round((chunkTexts.length / rawMs) * 1000),
      overheadPercent: Math.round(((ms - rawMs) / rawMs) * 100),
      cpuPerMemory: cpu,
      ...rateAsItGrows(marks),
      ...right,
      settled: { afterMs: settledAfterMs, ...settled },
    };
  } finally {
    await service.stop();
  }
}

if (process.argv[1]?.endsWith("bulk-ingest.ts")) {
  const { values } = parseArgs({
    options: {
      memories: { type: "string", default: "10000" },
      concurrency: { type: "string" },
      batch: { type: "string", default: String(BULK_INGEST_DEFAULTS.batch) },
      // Scratch runs: skip waiting for the worker's settling maintenance (settled = right after).
      "no-settle": { type: "boolean", default: false },
      // The built-in embedder in worker threads instead of the service's default (0: the main thread).
      "embedder-threads": { type: "string" },
      "eval-dir": { type: "string", default: "../shared/eval" },
      out: { type: "string", default: "bulk-ingest" },
    },
  });
  const models = await loadTestModels(
    { RERANKER: "none" },
    { builtinWorkers: Number(values["embedder-threads"] ?? BUILTIN_EMBEDDER_WORKERS) },
  );
  const result = await measureBulkIngest(models, {
    memories: Number(values.memories),
    // One call per memory keeps its historical 64 callers unless told otherwise.
    concurrency: Number(values.concurrency ?? (values.batch === "1" ? 64 : BULK_INGEST_DEFAULTS.concurrency)),
    batch: Number(values.batch),
    settle: !values["no-settle"],
    evalDir: values["eval-dir"],
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  writeBenchResult(values.out, { bulkIngest: result });
  await models.close();
  process.exit(0);
}
