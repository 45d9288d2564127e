import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import type { ChunkVectorRow, VectorStore } from "../../core/vectors/vector-store.js";
import {
  createMaintenanceProcess,
  type VectorMaintainer,
} from "../../worker/vector-maintenance/maintenance-process.js";
import { denseVector } from "../helpers/dense-vector.js";

// ADR 0560: vector-table upkeep runs in a child process at lower priority; the serving process's
// store sees its results (the new index, the compacted fragments) on its next read.

let dir: string;
let store: VectorStore;
let maintainer: VectorMaintainer;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "memory-maintenance-"));
  store = await openVectorStore(dir);
  maintainer = createMaintenanceProcess(dir, createLogger("silent"));
});

test.after.always(async () => {
  await maintainer?.close();
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

const dense = denseVector;

const rows = (from: number, n: number): ChunkVectorRow[] =>
  Array.from({ length: n }, (_, i) => ({
    chunkId: randomUUID(),
    memoryId: randomUUID(),
    vector: dense(from + i),
    validFrom: new Date(),
    validTo: null,
  }));

/** The niceness of a process (field 19 of /proc/PID/stat, after the parenthesised name). */
async function niceness(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

test.serial("the child compacts a table and builds its ANN index; the serving store sees both", async (t) => {
  const tenant = randomUUID();
  // 20 appends: 20 fragments, more than the 16 that trigger compaction; 1,300 rows: an index.
  const batches = Array.from({ length: 20 }, (_, i) => rows(i * 65, 65));
  for (const batch of batches) await store.upsert(tenant, "s", batch);
  const table = await store.openTable(tenant, "s");
  t.is((await table?.stats())?.fragmentStats.numFragments, 20);
  const result = await maintainer.maintain(tenant, "s", {});
  t.true(result.compacted);
  t.true(result.indexCreated);
  t.is(result.rows, 1300);
  const pid = maintainer.pid;
  t.truthy(pid);
  if (pid !== undefined) t.true((await niceness(pid)) >= 10, "the child runs at lower priority");
  t.true(((await table?.stats())?.fragmentStats.numFragments ?? 99) <= 16);
  t.true((await table?.listIndices())?.some((i) => i.columns.includes("vector")));
  // A search from the serving store finds a row's own vector first.
  const [hit] = await store.search(tenant, "s", dense(7), 5);
  t.is(hit?.chunkId, batches[0]?.[7]?.chunkId);
});

test.serial("a child killed mid-job fails that job; the next job starts a new child", async (t) => {
  const tenant = randomUUID();
  await store.upsert(tenant, "s", rows(5000, 1300));
  const running = maintainer.maintain(tenant, "s", {});
  const pid = maintainer.pid;
  t.truthy(pid);
  if (pid !== undefined) process.kill(pid, "SIGKILL");
  await t.throwsAsync(running, { message: /ended/ });
  const again = await maintainer.maintain(tenant, "s", {});
  t.not(maintainer.pid, pid);
  t.is(again.rows, 1300);
  t.true(again.indexCreated || again.indexRebuilt);
});

test.serial("a failed upkeep comes back as an error, and the child keeps serving", async (t) => {
  await t.throwsAsync(maintainer.maintain("not-a-uuid", "s", {}), { message: /vector maintenance failed/ });
  const tenant = randomUUID();
  await store.upsert(tenant, "s", rows(9000, 10));
  t.is((await maintainer.maintain(tenant, "s", {})).rows, 10);
});
