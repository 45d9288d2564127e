/**
 * `npm run bench:index-segments -- [--rows 100000] [--writes 2000]` (ADR 0260): what a vector table
 * written one memory at a time costs once it has an ANN index. A table of `rows` clustered random
 * 1,024-dim vectors (no model time) gets its HNSW-SQ index as the worker builds it; then `writes`
 * single-row commits, with `maintainVectorTable` after every 32nd table version as the write path
 * requests it. Reports the maintenance runs, index rebuilds (past `indexSegmentBound`) and their time,
 * and the CPU of 100 vector searches (k = 50) every 500 writes with the index's segments and the
 * table's fragments at that point. Writes bench/results/index-segments.json.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MAINTAIN_EVERY_VERSIONS } from "../core/memories/index.js";
import { openVectorStore } from "../core/vectors/lancedb-vector-store.js";
import { indexSegmentBound, maintainVectorTable } from "../core/vectors/maintain-vector-table.js";
import { createRandom } from "./synthetic-corpus.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    writes: { type: "string", default: "2000" },
  },
});
const ROWS = Number(values.rows);
const WRITES = Number(values.writes);
const DIM = 1024;
const SPACE = "bench";
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

// Clustered vectors (200 centres plus noise, normalised): some of the structure text embeddings have,
// without the embedder's time.
const random = createRandom(7);
const centres = Array.from({ length: 200 }, () => Float32Array.from({ length: DIM }, () => random() - 0.5));
function vector(): Float32Array {
  const centre = centres[Math.floor(random() * centres.length)] ?? new Float32Array(DIM);
  const v = Float32Array.from(centre, (x) => x + (random() - 0.5) * 0.6);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
const row = () => ({
  chunkId: randomUUID(),
  memoryId: randomUUID(),
  vector: vector(),
  validFrom: new Date(),
  validTo: null,
});

const dir = await mkdtemp(join(tmpdir(), "bench-index-segments-"));
const store = await openVectorStore(dir);
const tenant = randomUUID();
try {
  for (let done = 0; done < ROWS; done += 2_000) {
    const batch = Array.from({ length: Math.min(2_000, ROWS - done) }, row);
    await store.upsert(tenant, SPACE, batch, { readBack: false });
  }
  let started = performance.now();
  const initial = await maintainVectorTable(store, tenant, SPACE);
  const initialMs = Math.round(performance.now() - started);
  const table = await store.openTable(tenant, SPACE);
  if (!table) throw new Error("no table");
  const queries = Array.from({ length: 100 }, vector);

  const searches: Record<string, unknown>[] = [];
  const measure = async (afterWrites: number) => {
    for (const q of queries.slice(0, 10)) await store.search(tenant, SPACE, q, 50);
    const cpu = process.cpuUsage();
    for (const q of queries) await store.search(tenant, SPACE, q, 50);
    const used = process.cpuUsage(cpu);
    const sample = {
      afterWrites,
      cpuMsPerSearch: round((used.user + used.system) / 1000 / queries.length),
      segments: (await table.indexStats("vector_idx"))?.numIndices ?? 0,
      fragments: (await table.stats()).fragmentStats.numFragments,
    };
    process.stdout.write(`${JSON.stringify(sample)}\n`);
    searches.push(sample);
  };
  await measure(0);

  let runs = 0;
  let maintenanceMs = 0;
  const rebuiltAt: number[] = [];
  for (let i = 1; i <= WRITES; i++) {
    const { version } = await store.upsert(tenant, SPACE, [row()], { readBack: false });
    if (version % MAINTAIN_EVERY_VERSIONS === 0) {
      started = performance.now();
      const result = await maintainVectorTable(store, tenant, SPACE);
      maintenanceMs += performance.now() - started;
      runs++;
      if (result.indexRebuilt) rebuiltAt.push(i);
    }
    if (i % 500 === 0 || i === WRITES) await measure(i);
  }
  const result = {
    what: "single-row commits into an indexed table, maintenance every 32 versions (clustered random vectors)",
    rows: ROWS,
    writes: WRITES,
    segmentBound: indexSegmentBound(ROWS),
    initialMaintenance: { ...initial, ms: initialMs },
    maintenanceRuns: runs,
    rebuiltAtWrite: rebuiltAt,
    maintenanceSeconds: round(maintenanceMs / 1000, 1),
    maintenanceMsPerWrite: round(maintenanceMs / WRITES, 1),
    searches,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  writeBenchResult("index-segments", result);
} finally {
  store.close();
  await rm(dir, { recursive: true, force: true });
}
