import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { withAdvisoryLock } from "../../core/store/advisory-lock.js";
import type { SerializeCreation } from "../../core/vectors/create-table-once.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import type { ChunkVectorRow, VectorStore } from "../../core/vectors/vector-store.js";
import { createTestDatabase } from "../helpers/test-database.js";

// Issue 15, item 2: concurrent first writes to a new (tenant, space) table used to create the table
// more than once (each creation a Lance Overwrite), failing appends with commit conflicts or
// silently wiping rows already appended.

let dir: string;
let store: VectorStore;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "memory-vectors-first-"));
  store = await openVectorStore(dir);
});

test.after.always(async () => {
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

function rows(n: number): ChunkVectorRow[] {
  const memoryId = randomUUID();
  return Array.from({ length: n }, (_, i) => {
    const vector = new Float32Array(1024);
    vector[i % 1024] = 1;
    return { chunkId: randomUUID(), memoryId, vector, validFrom: new Date(), validTo: null };
  });
}

test("36 concurrent first stores into a fresh tenant's table all succeed and every row is kept", async (t) => {
  const tenant = randomUUID();
  const batches = Array.from({ length: 36 }, (_, i) => rows(1 + (i % 3)));
  await Promise.all(batches.map((b) => store.upsert(tenant, "space-a", b)));
  const expected = batches.reduce((sum, b) => sum + b.length, 0);
  t.is(await store.count(tenant, "space-a"), expected);
  const stored = new Set((await store.scan(tenant, "space-a")).map((r) => r.chunkId));
  t.true(batches.flat().every((r) => stored.has(r.chunkId)));
});

test("two stores on the same directory (two processes) sharing the PostgreSQL creation lock keep every row", async (t) => {
  const database = await createTestDatabase();
  const serializeCreation: SerializeCreation = (name, create) =>
    withAdvisoryLock(database.db.sql, `memory.vector-table:${name}`, create);
  const first = await openVectorStore(dir, { serializeCreation });
  const other = await openVectorStore(dir, { serializeCreation });
  t.teardown(async () => {
    first.close();
    other.close();
    await database.drop();
  });
  const tenant = randomUUID();
  const batches = Array.from({ length: 24 }, () => rows(2));
  await Promise.all(batches.map((b, i) => (i % 2 === 0 ? first : other).upsert(tenant, "space-b", b)));
  t.is(await first.count(tenant, "space-b"), 48);
  t.is(await other.count(tenant, "space-b"), 48);
});
