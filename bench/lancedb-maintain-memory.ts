import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Index } from "@lancedb/lancedb";
import { openVectorStore } from "../core/vectors/lancedb-vector-store.js";

// `npx tsx bench/lancedb-maintain-memory.ts` (ADR 0201 "Measured again"): what the worker's
// maintain-vectors job costs in memory after an import, on a bare LanceDB table in a process of its
// own: ROWS rows (default 20,480) appended in batches of 256 as the import does, then the two calls
// of maintainVectorTable — compaction (optimize) and the HNSW-SQ build — each with its peak RSS
// (sampled every 20 ms) and the V8 heap and external memory after it, to tell JavaScript from
// LanceDB's native memory. PARTITIONS sets the index's IVF partitions (default: LanceDB's).

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const ROWS = Number(process.env.ROWS ?? 20_480);
const PARTITIONS = process.env.PARTITIONS ? Number(process.env.PARTITIONS) : undefined;

const usage = () => {
  const m = process.memoryUsage();
  return `rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} external ${mb(m.external)} native ${mb(m.rss - m.heapTotal - m.external)} MB`;
};

async function peak<T>(label: string, run: () => Promise<T>): Promise<T> {
  const start = process.memoryUsage.rss();
  let top = start;
  const timer = setInterval(() => {
    top = Math.max(top, process.memoryUsage.rss());
  }, 20);
  const started = performance.now();
  try {
    return await run();
  } finally {
    clearInterval(timer);
    process.stdout.write(
      `${label}: ${Math.round(performance.now() - started)} ms, RSS ${mb(start)} → peak ${mb(top)} MB; after: ${usage()}\n`,
    );
  }
}

const dir = await mkdtemp(join(tmpdir(), "bench-maintain-"));
const store = await openVectorStore(dir);
try {
  const tenant = randomUUID();
  await peak(`append ${ROWS} rows`, async () => {
    for (let i = 0; i < ROWS / 256; i++) {
      const rows = Array.from({ length: 256 }, () => {
        const vector = new Float32Array(384);
        for (let j = 0; j < vector.length; j++) vector[j] = Math.random() - 0.5;
        return {
          chunkId: randomUUID(),
          memoryId: randomUUID(),
          vector,
          validFrom: new Date(),
          validTo: null,
        };
      });
      await store.upsert(tenant, "s", rows, { readBack: false });
    }
  });
  const table = await store.openTable(tenant, "s");
  if (!table) throw new Error("the table was not created");
  await peak("compact (optimize)", () => table.optimize({ cleanupOlderThan: new Date() }));
  const config =
    PARTITIONS === undefined
      ? { distanceType: "cosine" as const }
      : { distanceType: "cosine" as const, numPartitions: PARTITIONS };
  await peak(`HNSW-SQ index ${JSON.stringify(config)}`, () =>
    table.createIndex("vector", { config: Index.hnswSq(config) }),
  );
} finally {
  store.close();
  await rm(dir, { recursive: true, force: true });
}
