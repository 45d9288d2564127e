import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { OPEN_TABLE_BYTES, openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { indexSegmentBound, maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import type { ChunkVectorRow, VectorStore } from "../../core/vectors/vector-store.js";
import { parseVectorTableName, vectorTableName } from "../../core/vectors/vector-table-name.js";
import { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import { denseVector } from "../helpers/dense-vector.js";

// The vector API recall and graph call (docs/ingest.md "Vector API"), against a real LanceDB.

let dir: string;
let store: VectorStore;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "memory-vectors-"));
  store = await openVectorStore(dir);
});

test.after.always(async () => {
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A unit vector along axis `i` (plus a little of axis i+1, so neighbours are ordered). */
function axis(i: number, dim = 1024): Float32Array {
  const v = new Float32Array(dim);
  v[i] = 0.96;
  v[(i + 1) % dim] = 0.28;
  return v;
}

const dense = denseVector;

function row(
  memoryId: string,
  vector: Float32Array,
  validFrom: Date,
  validTo: Date | null = null,
): ChunkVectorRow {
  return { chunkId: randomUUID(), memoryId, vector, validFrom, validTo };
}

test("table names are per tenant and space, and reversible", (t) => {
  const tenant = randomUUID();
  const name = vectorTableName(tenant, "onnx:bge-m3:1024");
  t.regex(name, /^v1_[0-9a-f]{32}_[A-Za-z0-9_-]+$/);
  t.deepEqual(parseVectorTableName(name), { tenantId: tenant, space: "onnx:bge-m3:1024" });
  t.not(vectorTableName(tenant, "a"), vectorTableName(tenant, "b"));
  t.not(vectorTableName(randomUUID(), "a"), vectorTableName(tenant, "a"));
  t.throws(() => vectorTableName("not-a-uuid", "a"));
});

test("search returns the nearest current chunks by cosine distance, best first", async (t) => {
  const tenant = randomUUID();
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  const t0 = new Date("2026-01-01T00:00:00Z");
  await store.upsert(tenant, "space-1", [row(a, axis(0), t0), row(b, axis(1), t0), row(c, axis(500), t0)]);
  const hits = await store.search(tenant, "space-1", axis(1), 2);
  // axis(0) shares a component with the query, axis(500) none.
  t.deepEqual(
    hits.map((h) => h.memoryId),
    [b, a],
  );
  t.true((hits[0]?.distance ?? 1) < 1e-5);
  t.true((hits[1]?.distance ?? 0) > (hits[0]?.distance ?? 0));
  t.is(await store.count(tenant, "space-1"), 3);
  t.deepEqual(await store.search(tenant, "other-space", axis(1), 2), []);
  t.deepEqual(await store.search(randomUUID(), "space-1", axis(1), 2), []);
});

test("a bulk writer appends through a connection of its own: the store sees the rows at once and outlives its close", async (t) => {
  const tenant = randomUUID();
  const t0 = new Date("2026-01-01T00:00:00Z");
  // The store has searched the table before (a cached handle) and has not (a table the writer creates).
  await store.upsert(tenant, "space-1", [row(randomUUID(), axis(20), t0)]);
  t.is((await store.search(tenant, "space-1", axis(20), 1)).length, 1);
  const bulk = await store.forBulkWrite();
  const [a, b] = [randomUUID(), randomUUID()];
  for (let i = 0; i < 5; i++) {
    await bulk.upsert(tenant, "space-1", [row(i === 0 ? a : randomUUID(), axis(30 + i), t0)], {
      readBack: false,
    });
  }
  await bulk.upsert(tenant, "space-2", [row(b, axis(40), t0)], { readBack: false });
  t.is(await bulk.count(tenant, "space-1"), 6);
  bulk.close();
  t.is(await store.count(tenant, "space-1"), 6);
  t.deepEqual(
    (await store.search(tenant, "space-1", axis(30), 1)).map((h) => h.memoryId),
    [a],
  );
  t.deepEqual(
    (await store.search(tenant, "space-2", axis(40), 1)).map((h) => h.memoryId),
    [b],
  );
  t.deepEqual((await store.spaces(tenant)).sort(), ["space-1", "space-2"]);
});

test("tenants never see each other's vectors", async (t) => {
  const [t1, t2] = [randomUUID(), randomUUID()];
  const m1 = randomUUID();
  await store.upsert(t1, "space-1", [row(m1, axis(5), new Date())]);
  await store.upsert(t2, "space-1", [row(randomUUID(), axis(9), new Date())]);
  const hits = await store.search(t2, "space-1", axis(5), 10);
  t.false(hits.some((h) => h.memoryId === m1));
  t.is(hits.length, 1);
});

test("setValidTo closes versions for current search and keeps them for asOf", async (t) => {
  const tenant = randomUUID();
  const [old, next] = [randomUUID(), randomUUID()];
  const t0 = new Date("2026-01-01T00:00:00Z");
  const t1 = new Date("2026-02-01T00:00:00Z");
  await store.upsert(tenant, "s", [row(old, axis(3), t0)]);
  await store.upsert(tenant, "s", [row(next, axis(3), t1)]);
  await store.setValidTo(tenant, [old], t1);
  t.deepEqual(
    (await store.search(tenant, "s", axis(3), 5)).map((h) => h.memoryId),
    [next],
  );
  const during = await store.search(tenant, "s", axis(3), 5, { asOf: new Date("2026-01-15T00:00:00Z") });
  t.deepEqual(
    during.map((h) => h.memoryId),
    [old],
  );
  // valid_to is exclusive (spec: valid_to > as_of), valid_from inclusive.
  t.deepEqual(
    (await store.search(tenant, "s", axis(3), 5, { asOf: t1 })).map((h) => h.memoryId),
    [next],
  );
  t.deepEqual(await store.search(tenant, "s", axis(3), 5, { asOf: new Date("2025-12-31T00:00:00Z") }), []);
  await store.setValidTo(tenant, [old], null);
  t.is((await store.search(tenant, "s", axis(3), 5)).length, 2);
});

test("delete removes a memory's vectors in every space of the tenant; merge never duplicates", async (t) => {
  const tenant = randomUUID();
  const memory = randomUUID();
  const keep = randomUUID();
  const first = row(memory, axis(7), new Date());
  await store.upsert(tenant, "space-a", [first, row(keep, axis(8), new Date())]);
  await store.upsert(tenant, "space-b", [row(memory, axis(7), new Date())]);
  t.deepEqual((await store.spaces(tenant)).sort(), ["space-a", "space-b"]);
  await store.upsert(tenant, "space-a", [{ ...first, vector: axis(9) }], { mode: "merge" });
  t.is(await store.count(tenant, "space-a"), 2);
  t.is((await store.search(tenant, "space-a", axis(9), 1))[0]?.chunkId, first.chunkId);
  await store.delete(tenant, [memory]);
  t.is(await store.count(tenant, "space-a"), 1);
  t.is(await store.count(tenant, "space-b"), 0);
  await store.delete(tenant, [memory]);
  t.is(await store.count(tenant, "space-a"), 1);
});

test("vectors of smaller models are zero-padded to 1024 dimensions", async (t) => {
  const tenant = randomUUID();
  const memory = randomUUID();
  const small = new Float32Array([0.6, 0.8]);
  await store.upsert(tenant, "small", [row(memory, small, new Date())]);
  const hits = await store.search(tenant, "small", new Float32Array([0.6, 0.8]), 1);
  t.is(hits[0]?.memoryId, memory);
  t.true((hits[0]?.distance ?? 1) < 1e-6);
});

test("ids that are not uuids never reach a filter", async (t) => {
  await t.throwsAsync(store.delete(randomUUID(), ["x' OR '1'='1"]), { instanceOf: RangeError });
});

test("maintenance compacts many small appends and builds an ANN index above the threshold", async (t) => {
  const tenant = randomUUID();
  for (let i = 0; i < 20; i++) {
    await store.upsert(
      tenant,
      "m",
      Array.from({ length: 20 }, (_, j) => row(randomUUID(), axis((i * 20 + j) % 1000), new Date())),
    );
  }
  const table = await store.openTable(tenant, "m");
  t.is((await table?.stats())?.fragmentStats.numFragments, 20);
  const result = await maintainVectorTable(store, tenant, "m", { annIndexMinRows: 300, maxFragments: 8 });
  t.like(result, { rows: 400, compacted: true, indexCreated: true });
  t.true(((await table?.stats())?.fragmentStats.numFragments ?? 99) < 8);
  t.true((await table?.listIndices())?.some((i) => i.columns.includes("vector")));
  // Searching through the index still finds an exact match.
  const probe = axis(123);
  const hits = await store.search(tenant, "m", probe, 1);
  t.true((hits[0]?.distance ?? 1) < 0.01);
  // Running again does not rebuild the index.
  t.false(
    (await maintainVectorTable(store, tenant, "m", { annIndexMinRows: 300, maxFragments: 8 })).indexCreated,
  );
});

test("an index grown segment by segment is built again past the bound, and finds old and new rows", async (t) => {
  const tenant = randomUUID();
  const options = { annIndexMinRows: 300, maxIndexSegments: 3 };
  const rows = Array.from({ length: 300 }, (_, i) => row(randomUUID(), dense(i), new Date()));
  await store.upsert(tenant, "grow", rows);
  t.true((await maintainVectorTable(store, tenant, "grow", options)).indexCreated);
  const table = await store.openTable(tenant, "grow");
  const segments = async () => (await table?.indexStats("vector_idx"))?.numIndices ?? 0;
  const added: ChunkVectorRow[] = [];
  const rebuilt: boolean[] = [];
  for (let round = 0; round < 5; round++) {
    const batch = Array.from({ length: 20 }, (_, j) =>
      row(randomUUID(), dense(300 + round * 20 + j), new Date()),
    );
    await store.upsert(tenant, "grow", batch);
    added.push(...batch);
    const result = await maintainVectorTable(store, tenant, "grow", options);
    rebuilt.push(result.indexRebuilt);
    t.true((await segments()) <= 3, `${await segments()} segments after round ${round}`);
  }
  // Rounds 1–3 each add a segment (2, 3, 4 > 3): the third of them rebuilds; the others do not.
  t.deepEqual(rebuilt, [false, false, true, false, false]);
  t.is(await store.count(tenant, "grow"), 400);
  for (const probe of [rows[7], added[0], added[99]]) {
    const [hit] = await store.search(tenant, "grow", probe?.vector ?? dense(0), 1);
    t.is(hit?.chunkId, probe?.chunkId);
  }
});

test("a run while writes go on leaves the rebuild to the settling run (up to twice the bound)", async (t) => {
  // Issue 23: rebuilding a 10k-row index beside a bulk load took 16 s of the load's CPU.
  const tenant = randomUUID();
  const options = { annIndexMinRows: 300, maxIndexSegments: 2 };
  await store.upsert(
    tenant,
    "burst",
    Array.from({ length: 300 }, (_, i) => row(randomUUID(), dense(i), new Date())),
  );
  t.true((await maintainVectorTable(store, tenant, "burst", options)).indexCreated);
  const table = await store.openTable(tenant, "burst");
  const segments = async () => (await table?.indexStats("vector_idx"))?.numIndices ?? 0;
  const rebuilt: boolean[] = [];
  for (let round = 0; round < 4; round++) {
    await store.upsert(
      tenant,
      "burst",
      Array.from({ length: 20 }, (_, j) => row(randomUUID(), dense(300 + round * 20 + j), new Date())),
    );
    rebuilt.push(
      (await maintainVectorTable(store, tenant, "burst", { ...options, duringWrites: true })).indexRebuilt,
    );
  }
  // Segments 2, 3, 4 stay (≤ 2 × 2); the fourth round's 5th segment is past twice the bound.
  t.deepEqual(rebuilt, [false, false, false, true]);
  await store.upsert(
    tenant,
    "burst",
    Array.from({ length: 20 }, (_, j) => row(randomUUID(), dense(400 + j), new Date())),
  );
  t.false(
    (await maintainVectorTable(store, tenant, "burst", { ...options, duringWrites: true })).indexRebuilt,
  );
  t.is(await segments(), 2);
  await store.upsert(
    tenant,
    "burst",
    Array.from({ length: 20 }, (_, j) => row(randomUUID(), dense(420 + j), new Date())),
  );
  // The settling run (writes paused) keeps the bound itself.
  t.true((await maintainVectorTable(store, tenant, "burst", options)).indexRebuilt);
  t.is(await segments(), 1);
  t.is(await store.count(tenant, "burst"), 420);
});

test("more new rows than indexed ones are indexed by a rebuild over the whole table, not a delta", async (t) => {
  const tenant = randomUUID();
  const options = { annIndexMinRows: 300 };
  const first = Array.from({ length: 300 }, (_, i) => row(randomUUID(), dense(i), new Date()));
  await store.upsert(tenant, "double", first);
  t.true((await maintainVectorTable(store, tenant, "double", options)).indexCreated);
  const table = await store.openTable(tenant, "double");
  const stats = async () => table?.indexStats("vector_idx");
  // Fewer new rows than indexed: a delta segment as before.
  await store.upsert(
    tenant,
    "double",
    Array.from({ length: 100 }, (_, j) => row(randomUUID(), dense(300 + j), new Date())),
  );
  t.false((await maintainVectorTable(store, tenant, "double", options)).indexRebuilt);
  t.is((await stats())?.numIndices, 2);
  // 500 new rows against 400 indexed: one index over all 900 rows.
  const second = Array.from({ length: 500 }, (_, j) => row(randomUUID(), dense(400 + j), new Date()));
  await store.upsert(tenant, "double", second);
  t.true((await maintainVectorTable(store, tenant, "double", options)).indexRebuilt);
  t.like(await stats(), { numIndices: 1, numIndexedRows: 900, numUnindexedRows: 0 });
  for (const probe of [first[3], second[0], second[499]]) {
    const [hit] = await store.search(tenant, "double", probe?.vector ?? dense(0), 1);
    t.is(hit?.chunkId, probe?.chunkId);
  }
});

test("the segment bound is 8 for small tables and grows with the square root of larger ones", (t) => {
  t.is(indexSegmentBound(5_000), 8);
  t.is(indexSegmentBound(10_000), 8);
  t.is(indexSegmentBound(40_000), 16);
  t.is(indexSegmentBound(100_000), 25);
  t.is(indexSegmentBound(1_000_000), 80);
});

test("concurrent upserts into one table commit together: fewer fragments than writers, every row kept", async (t) => {
  const tenant = randomUUID();
  const writes = Array.from({ length: 40 }, (_, i) => [row(randomUUID(), axis(i), new Date())]);
  const results = await Promise.all(writes.map((rows) => store.upsert(tenant, "g", rows)));
  t.is(await store.count(tenant, "g"), 40);
  const table = await store.openTable(tenant, "g");
  const fragments = (await table?.stats())?.fragmentStats.numFragments ?? 0;
  t.true(fragments >= 1 && fragments <= 4, `${fragments} fragments for 40 concurrent writes`);
  // Writers of one batch answer with the version of the commit that holds their rows.
  t.true(new Set(results.map((r) => r.version)).size <= fragments);
  for (const [rows] of writes) {
    const hits = await store.search(tenant, "g", rows?.vector ?? axis(0), 1);
    t.is(hits[0]?.chunkId, rows?.chunkId);
  }
});

test("a writer's bad rows fail only that writer when writes are batched", async (t) => {
  const tenant = randomUUID();
  const good = Array.from({ length: 5 }, (_, i) => [row(randomUUID(), axis(i), new Date())]);
  const bad = [row(randomUUID(), new Float32Array(2048), new Date())];
  const outcomes = await Promise.allSettled([
    ...good.map((rows) => store.upsert(tenant, "b", rows)),
    store.upsert(tenant, "b", bad),
  ]);
  t.deepEqual(
    outcomes.map((o) => o.status),
    [...good.map(() => "fulfilled"), "rejected"],
  );
  t.is(await store.count(tenant, "b"), 5);
});

test("maintenance prunes old table versions even when there is nothing to compact", async (t) => {
  const tenant = randomUUID();
  for (let i = 0; i < 6; i++) await store.upsert(tenant, "v", [row(randomUUID(), axis(i), new Date())]);
  const table = await store.openTable(tenant, "v");
  const before = (await table?.listVersions())?.length ?? 0;
  t.true(before >= 6);
  const result = await maintainVectorTable(store, tenant, "v", { versionRetentionMs: 0 });
  t.false(result.compacted);
  t.true(result.versionsRemoved >= before - 2, `${result.versionsRemoved} of ${before} versions removed`);
  t.true(((await table?.listVersions())?.length ?? 99) <= 2);
  t.is(await store.count(tenant, "v"), 6);
});

test("maintenance runs of one table at the same time (a re-queued job, an erasure's purge) all succeed", async (t) => {
  // LanceDB refuses a compaction that overlaps another one of the same table ("Rewrite transaction
  // was preempted by concurrent transaction Rewrite"): the store runs a table's rewrites one by one.
  const tenant = randomUUID();
  for (let i = 0; i < 20; i++) {
    await store.upsert(
      tenant,
      "c",
      Array.from({ length: 10 }, (_, j) => row(randomUUID(), axis((i * 10 + j) % 1000), new Date())),
    );
  }
  const runs = await Promise.allSettled(
    Array.from({ length: 4 }, () => maintainVectorTable(store, tenant, "c", { maxFragments: 4 })),
  );
  t.deepEqual(
    runs.map((r) => (r.status === "rejected" ? String(r.reason) : r.status)),
    runs.map(() => "fulfilled"),
  );
  t.is(await store.count(tenant, "c"), 200);
});

test("an ANN-indexed table answers searches for more candidates than the index's default ef", async (t) => {
  // Filtered recall over-fetches up to 1,000 candidates (ADR 0220); with exact re-ranking LanceDB asks
  // the index for k × refine factor rows, which HNSW refuses when that exceeds ef.
  const tenant = randomUUID();
  await store.upsert(
    tenant,
    "wide",
    // Dense vectors: among near-orthogonal axis vectors the HNSW graph is poorly connected, and a
    // search for 300 of 400 rows once found only 200 (under a loaded CI run).
    Array.from({ length: 400 }, (_, i) => row(randomUUID(), dense(i), new Date())),
  );
  t.true((await maintainVectorTable(store, tenant, "wide", { annIndexMinRows: 300 })).indexCreated);
  for (const k of [10, 60, 300]) {
    const hits = await store.search(tenant, "wide", dense(7), k);
    t.is(hits.length, k, `k = ${k}`);
  }
});

test("concurrent searches of one table, run as one multi-vector query, each get their own search's rows", async (t) => {
  const tenant = randomUUID();
  await store.upsert(
    tenant,
    "coalesced",
    Array.from({ length: 400 }, (_, i) => row(randomUUID(), axis(i % 1000), new Date())),
  );
  t.true((await maintainVectorTable(store, tenant, "coalesced", { annIndexMinRows: 300 })).indexCreated);
  const queries = Array.from({ length: 24 }, (_, i) => axis((i * 13) % 400));
  // One at a time: each search runs alone.
  const alone = [];
  for (const q of queries) alone.push(await store.search(tenant, "coalesced", q, 10));
  // All at once: the first runs alone, the others gather while it runs and go as one query.
  const together = await Promise.all(queries.map((q) => store.search(tenant, "coalesced", q, 10)));
  t.deepEqual(together, alone);
  for (const hits of together) t.is(hits.length, 10);
  // Each vector got its own answer, not one answer shared by the batch.
  t.true(new Set(together.map((hits) => hits[0]?.chunkId)).size > queries.length / 2);
  // Different k or predicate never share a query.
  const [ten, three] = await Promise.all([
    store.search(tenant, "coalesced", axis(5), 10),
    store.search(tenant, "coalesced", axis(5), 3),
  ]);
  t.is(ten.length, 10);
  t.deepEqual(three, ten.slice(0, 3));
});

test("distances are cosine distances on a fully indexed table (index scale), a partly indexed and a flat one", async (t) => {
  // Fusion calibrates on cosine distance (core/recall/fuse). A fully indexed table is searched with
  // the index's quantised distances, which LanceDB reports as 2 × (1 − cos); the store halves them.
  // Fails if a LanceDB upgrade changes that scale.
  const tenant = randomUUID();
  const vectors = Array.from({ length: 400 }, (_, i) => dense(i));
  await store.upsert(
    tenant,
    "scale",
    vectors.map((v) => row(randomUUID(), v, new Date())),
  );
  const byChunk = new Map<string, Float32Array>();
  const cosineDistance = (a: Float32Array, b: Float32Array) => {
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
    return 1 - dot / (Math.hypot(...a) * Math.hypot(...b));
  };
  const query = Float32Array.from(dense(7), (x, i) => 0.6 * x + 0.8 * (dense(1000)[i] ?? 0));
  const check = async (label: string, tolerance: number) => {
    const hits = await store.search(tenant, "scale", query, 20);
    t.is(hits.length, 20, label);
    const errors = hits.map((h) =>
      Math.abs(h.distance - cosineDistance(query, byChunk.get(h.chunkId) ?? query)),
    );
    t.true(Math.max(...errors) < tolerance, `${label}: largest error ${Math.max(...errors)}`);
    for (let i = 1; i < hits.length; i++)
      t.true((hits[i]?.distance ?? 0) >= (hits[i - 1]?.distance ?? 0), label);
    return errors;
  };
  // Row ids of the table, to compare each hit with its exact distance.
  const all = await store.search(tenant, "scale", query, 400);
  for (const hit of all) {
    const index = vectors.findIndex((v) => Math.abs(cosineDistance(query, v) - hit.distance) < 1e-5);
    if (index >= 0) byChunk.set(hit.chunkId, vectors[index] ?? query);
  }
  t.is(byChunk.size, 400);
  await check("flat", 1e-4);
  t.true((await maintainVectorTable(store, tenant, "scale", { annIndexMinRows: 300 })).indexCreated);
  const indexed = await check("fully indexed", 0.03);
  // The indexed search really ran on quantised distances (not the exact re-ranking).
  t.true(Math.max(...indexed) > 1e-5);
  const added = Array.from({ length: 10 }, (_, i) => dense(500 + i));
  const addedRows = added.map((v) => row(randomUUID(), v, new Date()));
  for (const [i, r] of addedRows.entries()) byChunk.set(r.chunkId, added[i] ?? query);
  await store.upsert(tenant, "scale", addedRows);
  await check("partly indexed", 1e-4);
});

test("open tables are held within the workspace state budget; evicted ones reopen and answer the same", async (t) => {
  const budget = new MemoryBudget({ budgetBytes: Math.floor(2.5 * OPEN_TABLE_BYTES), windowShare: 0 });
  const own = await mkdtemp(join(tmpdir(), "memory-vectors-budget-"));
  const bounded = await openVectorStore(own, { budget });
  try {
    const tenants = Array.from({ length: 6 }, () => randomUUID());
    const memories = tenants.map(() => randomUUID());
    for (const [i, tenant] of tenants.entries())
      await bounded.upsert(tenant, "s", [row(memories[i] as string, axis(i), new Date())]);
    for (let round = 0; round < 3; round++)
      for (const [i, tenant] of tenants.entries()) {
        const [hit] = await bounded.search(tenant, "s", axis(i), 1);
        t.is(hit?.memoryId, memories[i]);
        t.true(budget.bytes <= budget.budgetBytes);
      }
    t.true(budget.stats().entries <= 2, "at most two handles of 96 KB fit 240 KB");
    t.true(budget.stats().refused + budget.stats().evicted > 0);
  } finally {
    bounded.close();
    await rm(own, { recursive: true, force: true });
  }
});
