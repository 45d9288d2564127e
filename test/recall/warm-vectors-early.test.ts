import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { readHotList, writeHotList } from "../../core/recall/bm25/hot-list.js";
import { warmHotVectorsEarly } from "../../core/recall/warm-workspaces.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import type { ChunkVectorRow, VectorStore } from "../../core/vectors/vector-store.js";
import { denseVector } from "../helpers/dense-vector.js";

// A restart loads the ANN indexes of the last run's hottest workspaces while the models still load
// (issue 46: a 100k workspace's first recall after a restart paid its index load), and a recall that
// comes while its table's index loads waits for that load instead of loading it a second time.

let dir: string;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "memory-warm-early-"));
});

test.after.always(async () => {
  await rm(dir, { recursive: true, force: true });
});

const dense = denseVector;

/** A tenant with `rows` vectors and an ANN index over them; answers its memory ids in row order. */
async function indexedTenant(
  store: VectorStore,
  rows: number,
): Promise<{ tenantId: string; memoryIds: string[] }> {
  const tenantId = randomUUID();
  const memoryIds = Array.from({ length: rows }, () => randomUUID());
  const batch: ChunkVectorRow[] = memoryIds.map((memoryId, i) => ({
    chunkId: randomUUID(),
    memoryId,
    vector: dense(i),
    validFrom: new Date("2026-01-01T00:00:00Z"),
    validTo: null,
  }));
  await store.upsert(tenantId, "m", batch);
  const built = await maintainVectorTable(store, tenantId, "m", { annIndexMinRows: 300 });
  if (!built.indexCreated) throw new Error("the fixture's ANN index was not built");
  return { tenantId, memoryIds };
}

/** The store with its warm() calls recorded (the real warm() runs). */
function recording(store: VectorStore): { store: VectorStore; warmed: string[] } {
  const warmed: string[] = [];
  return {
    warmed,
    store: {
      ...store,
      warm: (tenantId) => {
        warmed.push(tenantId);
        return store.warm(tenantId);
      },
    },
  };
}

test("the hot list's first workspaces are warmed early, in its order, and a search during the load answers", async (t) => {
  const vectorDir = join(dir, "first");
  const writer = await openVectorStore(vectorDir);
  const hot = await indexedTenant(writer, 400);
  const second = await indexedTenant(writer, 400);
  const third = await indexedTenant(writer, 400);
  writer.close();
  writeHotList(dir, [hot.tenantId, second.tenantId, third.tenantId]);

  // A new process: nothing of the indexes in memory.
  const store = await openVectorStore(vectorDir);
  try {
    const { store: watched, warmed } = recording(store);
    const early = warmHotVectorsEarly({
      vectors: watched,
      hotList: () => readHotList(dir),
      logger: createLogger("silent"),
      count: 2,
    });
    // The first recall of the hottest workspace comes while its index loads.
    const hits = await store.search(hot.tenantId, "m", dense(7), 3);
    t.is(hits[0]?.memoryId, hot.memoryIds[7]);
    await early.done;
    t.deepEqual(warmed, [hot.tenantId, second.tenantId], "the first two of the list, most worth it first");
    const again = await store.search(second.tenantId, "m", dense(11), 3);
    t.is(again[0]?.memoryId, second.memoryIds[11]);
  } finally {
    store.close();
  }
});

test("concurrent warm-ups of one workspace both finish, and stop() ends an early warm-up before the next", async (t) => {
  const vectorDir = join(dir, "second");
  const writer = await openVectorStore(vectorDir);
  const one = await indexedTenant(writer, 400);
  writer.close();

  const store = await openVectorStore(vectorDir);
  try {
    await Promise.all([store.warm(one.tenantId), store.warm(one.tenantId)]);
    const hits = await store.search(one.tenantId, "m", dense(3), 1);
    t.is(hits[0]?.memoryId, one.memoryIds[3]);

    const { store: watched, warmed } = recording(store);
    const early = warmHotVectorsEarly({
      vectors: watched,
      hotList: async () => [one.tenantId, randomUUID()],
      logger: createLogger("silent"),
    });
    early.stop();
    await early.done;
    t.deepEqual(warmed, [], "stopped before the hot list was read back");
    // A workspace with no table (erased since the list was written) is skipped without an error.
    await t.notThrowsAsync(
      warmHotVectorsEarly({
        vectors: store,
        hotList: async () => [randomUUID()],
        logger: createLogger("silent"),
      }).done,
    );
  } finally {
    store.close();
  }
});
