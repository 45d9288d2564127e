import { mkdir } from "node:fs/promises";
import * as lancedb from "@lancedb/lancedb";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import { type ChunkVectorRow, toChunkVectorTable } from "./chunk-vector-schema.js";
import { createTableOnce, type SerializeCreation } from "./create-table-once.js";
import { createGroupCommit, type GroupCommitOptions, type Settled } from "./group-commit.js";
import { readChunkVectorRows } from "./read-chunk-vector-rows.js";
import { createSearchCoalescer, type VectorHit } from "./search-coalesced.js";
import { serializeRewrites } from "./serialize-rewrites.js";
import { idListFilter, inBatches, requireUuids, validityFilter } from "./vector-filters.js";
import { parseVectorTableName, tenantTablePrefix, vectorTableName } from "./vector-table-name.js";
import { presentChunkIds, writeVerified } from "./write-verified.js";

export type { ChunkVectorRow } from "./chunk-vector-schema.js";
export type { VectorHit } from "./search-coalesced.js";

/** A stored row without its vector; validTo in epoch milliseconds, null while current. */
export interface VectorRowInfo {
  readonly chunkId: string;
  readonly memoryId: string;
  readonly validTo: number | null;
}

export interface VectorSearchOptions {
  /** Point in time (spec service_recall_at_time); unset: current versions only. */
  readonly asOf?: Date;
  /**
   * A further LanceDB predicate ANDed to the validity filter (recall filters: `memory_id IN (…)`),
   * built from checked ids only (vector-filters.ts), never from caller text.
   */
  readonly where?: string;
}

/**
 * The LanceDB database holding chunk vectors, one table per tenant and embedding space (DESIGN
 * "Storage"). This is the API recall, graph and ingest call; docs/ingest.md documents it.
 */
export interface VectorStore {
  readonly uri: string;
  readonly connection: lancedb.Connection;
  /** True when the store answers a table listing. */
  ping(): Promise<boolean>;
  search(
    tenantId: string,
    space: string,
    queryVector: Float32Array,
    k: number,
    options?: VectorSearchOptions,
  ): Promise<VectorHit[]>;
  /**
   * Resolves with the table's version once every row is read back from the table (0 when nothing
   * was written); commit conflicts are retried, rows still missing reject the call.
   */
  upsert(
    tenantId: string,
    space: string,
    rows: readonly ChunkVectorRow[],
    options?: {
      mode?: "append" | "merge";
      /**
       * false: skip the read-back (a filtered scan of the whole table per write). Only for a writer
       * that checks the table's row count itself once it is done (the import).
       */
      readBack?: boolean;
    },
  ): Promise<{ version: number }>;
  setValidTo(tenantId: string, memoryIds: readonly string[], validTo: Date | null): Promise<void>;
  delete(tenantId: string, memoryIds: readonly string[]): Promise<void>;
  /** Removes rows by chunk id from one space (reconcile: orphans). */
  deleteChunks(tenantId: string, space: string, chunkIds: readonly string[]): Promise<void>;
  /**
   * Leaves one row per chunk id where a chunk's vector was written twice (reconcile): the copies are
   * read, deleted, and one is written back merged on chunk_id. Returns how many chunk ids it rewrote.
   */
  keepOneCopy(tenantId: string, space: string, chunkIds: readonly string[]): Promise<number>;
  /** Every row of one (tenant, space) table without its vector (reconcile). */
  scan(tenantId: string, space: string): Promise<VectorRowInfo[]>;
  count(tenantId: string, space: string): Promise<number>;
  /** Which of the chunk ids have a row in the (tenant, space) table now (reconcile's second look). */
  presentChunkIds(tenantId: string, space: string, chunkIds: readonly string[]): Promise<Set<string>>;
  spaces(tenantId: string): Promise<string[]>;
  /** The (tenant, space) table, or undefined when it does not exist yet (worker jobs). */
  openTable(tenantId: string, space: string): Promise<lancedb.Table | undefined>;
  /**
   * Creates the (tenant, space) table unless it exists. Creating takes the cross-process creation
   * lock (`serializeCreation`, a PostgreSQL advisory lock on a pooled connection): a writer that
   * upserts inside a database transaction calls this first, outside it, so that the upsert never
   * waits for a pool connection while its transaction holds locks others queue behind.
   */
  ensureTable(tenantId: string, space: string): Promise<void>;
  /**
   * Runs `rewrite` (compaction, index build, purge of one (tenant, space) table) while no other rewrite
   * of that table runs in this process or, with `serializeRewrites`, in any process on the store.
   */
  exclusive<T>(tenantId: string, space: string, rewrite: () => Promise<T>): Promise<T>;
  /**
   * Opens the tenant's tables and loads their ANN indexes into LanceDB's cache ahead of the first
   * search (warm-up after a restart: a 100k-row table's first search was 415 ms cold, 9 ms warm).
   */
  warm(tenantId: string): Promise<void>;
  /** Every chunk-vector table (worker maintenance). */
  listTables(): Promise<{ tenantId: string; space: string; name: string }[]>;
  /** Removes one (tenant, space) table (re-embed drops the old space). */
  dropSpace(tenantId: string, space: string): Promise<void>;
  /**
   * A second connection to the same store for one long run of appends (the import), with caches of
   * its own sized for writing: the manifests of hundreds of appends never fill the cache that serves
   * searches, and close() frees them all. Same locks, same batching; the caller closes it.
   */
  forBulkWrite(): Promise<VectorStore>;
  close(): void;
}

export interface VectorStoreOptions {
  /** The cross-process lock for creating a table (start-storage: a PostgreSQL advisory lock). */
  readonly serializeCreation?: SerializeCreation;
  /** The cross-process lock for rewriting a table (start-storage: a PostgreSQL advisory lock). */
  readonly serializeRewrites?: SerializeCreation;
  /** Called for each LanceDB commit conflict a write retries. */
  readonly onConflict?: (table: string, attempt: number) => void;
  /** Bound of LanceDB's metadata cache (manifests, file metadata); default METADATA_CACHE_BYTES. */
  readonly metadataCacheBytes?: number;
  /** Bound of LanceDB's index cache (ANN index partitions of the tables searched); default INDEX_CACHE_BYTES. */
  readonly indexCacheBytes?: number;
  /** How concurrent upserts into one table coalesce into one commit (defaults: WRITE_BATCHING). */
  readonly batching?: GroupCommitOptions;
  /**
   * The process's one budget for per-workspace state (issue 46): open table handles are held only
   * while it admits them; without it every table opened stays open (tools, tests).
   */
  readonly budget?: MemoryBudget | undefined;
}

/**
 * What one open table handle holds in native memory (dataset, schema, fragment list) for a table of
 * a few hundred rows: 1,000 tables opened and searched in one process grew RSS by ≈ 80 KB each.
 */
export const OPEN_TABLE_BYTES = 96 * 1024;

/**
 * Concurrent upserts into one table commit together: one fragment and one version per batch instead
 * of per memory (issue #23). A lone write waits 3 ms for company; under load a batch gathers while the
 * previous one commits, so the linger is paid only when the table is idle.
 */
export const WRITE_BATCHING: GroupCommitOptions = { lingerMs: 3, maxRows: 2_000 };

interface PendingUpsert {
  readonly table: lancedb.Table;
  readonly tenantId: string;
  readonly rows: readonly ChunkVectorRow[];
  readonly mode: "append" | "merge";
  readonly readBack: boolean;
}

/**
 * LanceDB caches the metadata of every table version and data file it reads, up to 1 GiB by
 * default: a long run of appends (an import of 100k memories: 400 versions, each manifest listing
 * every fragment so far) grew the process without ever shrinking — measured on 400 appends of 256
 * rows: cache 53 MB and RSS +46 MB with a 64 MiB bound, cache 16 MB and RSS +28 MB (flat after 300
 * appends) with 16 MiB. 16 MiB still holds the current manifests of hundreds of tables.
 */
export const METADATA_CACHE_BYTES = 16 * 2 ** 20;
/** LanceDB's default index cache (ANN indexes of the tables searched), kept as it was. */
const INDEX_CACHE_BYTES = 6 * 2 ** 30;
/**
 * forBulkWrite()'s caches. An append reads the table's latest manifest and writes the next; it never
 * searches. 4 MiB for the search cache cost recall under load (docs/export.md "LanceDB's metadata
 * cache at 4 MiB"), but for a connection that only appends it is plenty.
 */
export const BULK_WRITE_CACHES = { metadataCacheBytes: 4 * 2 ** 20, indexCacheBytes: 2 ** 20 } as const;

export async function openVectorStore(uri: string, options: VectorStoreOptions = {}): Promise<VectorStore> {
  if (!uri.includes("://")) await mkdir(uri, { recursive: true });
  // Lance warns on every indexStats() (maintenance reads the segment count) unless told whether the
  // statistics include the IVF centroids; we never read them. An operator's own setting wins.
  process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= "false";
  // Core and worker may be separate processes writing the same tables: check for a newer table
  // version on every read instead of serving a stale cached one.
  const session = new lancedb.Session(
    BigInt(options.indexCacheBytes ?? INDEX_CACHE_BYTES),
    BigInt(options.metadataCacheBytes ?? METADATA_CACHE_BYTES),
  );
  const connection = await lancedb.connect(uri, { readConsistencyInterval: 0, session });
  const tables = new Map<string, Promise<lancedb.Table | undefined>>();
  /**
   * Tables whose ANN index is being (or was) loaded into LanceDB's index cache by warm(). A search of
   * a table whose load is under way waits for it instead of loading the same index a second time
   * beside it (two loads of a 100k-row index on 2 cores took longer than one, then the search).
   */
  const warming = new Map<string, Promise<void>>();

  const budget = options.budget;
  /**
   * An open handle is kept while the budget admits it; an evicted one is only forgotten, never closed:
   * a search or write still using it keeps it alive, and the garbage collector frees it after.
   */
  const keep = (name: string, table: Promise<lancedb.Table | undefined>) => {
    if (!budget) return;
    const admitted = budget.admit(`vectors:${name}`, OPEN_TABLE_BYTES, () => {
      if (tables.get(name) !== table) return;
      tables.delete(name);
      warming.delete(name);
    });
    if (!admitted && tables.get(name) === table) {
      tables.delete(name);
      warming.delete(name);
    }
  };

  const existing = (name: string): Promise<lancedb.Table | undefined> => {
    budget?.touch(`vectors:${name}`);
    let table = tables.get(name);
    if (!table) {
      const opening: Promise<lancedb.Table | undefined> = connection.openTable(name).then(
        (t) => {
          keep(name, opening);
          return t;
        },
        (error: unknown) => {
          tables.delete(name);
          if (/not found|does not exist|was not found/i.test(String(error))) return undefined;
          throw error;
        },
      );
      table = opening;
      tables.set(name, table);
    }
    return table.then((t) => {
      // A miss is not cached: another process may create the table any moment.
      if (t === undefined) tables.delete(name);
      return t;
    });
  };

  const createTable = createTableOnce(connection, options.serializeCreation);
  const rewriteAlone = serializeRewrites(options.serializeRewrites);
  const createOrOpen = async (name: string): Promise<lancedb.Table> => {
    const found = await existing(name);
    if (found) return found;
    const created = await createTable(name);
    const held = Promise.resolve(created);
    tables.set(name, held);
    keep(name, held);
    return created;
  };

  // Async so that rows Arrow refuses (a vector too long) reject this write instead of throwing.
  const write = async (
    table: lancedb.Table,
    tenantId: string,
    rows: readonly ChunkVectorRow[],
    mode: "append" | "merge",
    readBack: boolean,
  ) =>
    writeVerified(
      table,
      toChunkVectorTable(tenantId, rows),
      rows.map((r) => r.chunkId),
      { mode, readBack, ...(options.onConflict ? { onConflict: options.onConflict } : {}) },
    );
  const settle = (promise: Promise<{ version: number }>): Promise<Settled<{ version: number }>> =>
    promise.then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  const searchCoalesced = createSearchCoalescer();
  const upsertBatched = createGroupCommit<PendingUpsert, { version: number }>(async (_key, batch) => {
    const [first] = batch;
    if (!first) return [];
    if (batch.length === 1)
      return [await settle(write(first.table, first.tenantId, first.rows, first.mode, first.readBack))];
    const together = await settle(
      write(
        first.table,
        first.tenantId,
        batch.flatMap((p) => p.rows),
        first.mode,
        first.readBack,
      ),
    );
    if (together.ok) return batch.map(() => together);
    // One writer's bad rows (or a failure we cannot attribute) must not fail the others: each writes
    // alone, merging on chunk_id in case part of the joint commit landed.
    const alone: Settled<{ version: number }>[] = [];
    for (const p of batch) alone.push(await settle(write(p.table, p.tenantId, p.rows, "merge", p.readBack)));
    return alone;
  }, options.batching ?? WRITE_BATCHING);

  const tenantTables = async (tenantId: string): Promise<string[]> => {
    const prefix = tenantTablePrefix(tenantId);
    const names: string[] = [];
    let startAfter = prefix;
    for (;;) {
      const page = await connection.tableNames({ startAfter, limit: 100 });
      const mine = page.filter((n) => n.startsWith(prefix));
      names.push(...mine);
      if (page.length < 100 || mine.length < page.length) return names;
      startAfter = page[page.length - 1] ?? prefix;
    }
  };

  return {
    uri,
    connection,
    async ping() {
      try {
        await connection.tableNames({ limit: 1 });
        return true;
      } catch {
        return false;
      }
    },
    async search(tenantId, space, queryVector, k, options = {}) {
      if (k < 1) return [];
      const name = vectorTableName(tenantId, space);
      const table = await existing(name);
      if (!table) return [];
      await warming.get(name);
      const where =
        options.where === undefined
          ? validityFilter(options.asOf)
          : `(${validityFilter(options.asOf)}) AND (${options.where})`;
      return searchCoalesced(`${name}\u0000${k}\u0000${where}`, { table, vector: queryVector, k, where });
    },
    async upsert(tenantId, space, rows, writeOptions = {}) {
      if (rows.length === 0) return { version: 0 };
      requireUuids(rows.map((r) => r.chunkId));
      const name = vectorTableName(tenantId, space);
      const table = await createOrOpen(name);
      const mode = writeOptions.mode ?? "append";
      const readBack = writeOptions.readBack ?? true;
      // Writes that skip the read-back (the import counts rows itself) never share a commit with
      // writes that rely on it.
      return upsertBatched(
        `${mode}:${readBack}:${name}`,
        { table, tenantId, rows, mode, readBack },
        rows.length,
      );
    },
    async setValidTo(tenantId, memoryIds, validTo) {
      requireUuids(memoryIds);
      if (memoryIds.length === 0) return;
      const value = validTo === null ? "NULL" : String(validTo.getTime());
      for (const name of await tenantTables(tenantId)) {
        const table = await existing(name);
        if (!table) continue;
        for (const batch of inBatches(memoryIds)) {
          await table.update({ where: idListFilter("memory_id", batch), valuesSql: { valid_to: value } });
        }
      }
    },
    async delete(tenantId, memoryIds) {
      requireUuids(memoryIds);
      if (memoryIds.length === 0) return;
      for (const name of await tenantTables(tenantId)) {
        const table = await existing(name);
        if (!table) continue;
        for (const batch of inBatches(memoryIds)) await table.delete(idListFilter("memory_id", batch));
      }
    },
    async deleteChunks(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      if (chunkIds.length === 0) return;
      const table = await existing(vectorTableName(tenantId, space));
      if (!table) return;
      for (const batch of inBatches(chunkIds)) await table.delete(idListFilter("chunk_id", batch));
    },
    async keepOneCopy(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      const table = await existing(vectorTableName(tenantId, space));
      if (!table || chunkIds.length === 0) return 0;
      let rewritten = 0;
      for (const batch of inBatches(chunkIds)) {
        const one = new Map<string, ChunkVectorRow>();
        for (const r of await readChunkVectorRows(table, batch))
          if (!one.has(r.chunkId)) one.set(r.chunkId, r);
        if (one.size === 0) continue;
        // Two commits: a search between them misses these chunks for milliseconds, where deleting
        // every copy and re-embedding later left them unfindable until the next sweep.
        await table.delete(idListFilter("chunk_id", [...one.keys()]));
        await write(table, tenantId, [...one.values()], "merge", true);
        rewritten += one.size;
      }
      return rewritten;
    },
    async scan(tenantId, space) {
      const table = await existing(vectorTableName(tenantId, space));
      if (!table) return [];
      const rows = (await table.query().select(["chunk_id", "memory_id", "valid_to"]).toArray()) as {
        chunk_id: string;
        memory_id: string;
        valid_to: number | null;
      }[];
      return rows.map((r) => ({ chunkId: r.chunk_id, memoryId: r.memory_id, validTo: r.valid_to ?? null }));
    },
    async count(tenantId, space) {
      const table = await existing(vectorTableName(tenantId, space));
      return table ? table.countRows() : 0;
    },
    async presentChunkIds(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      const table = chunkIds.length === 0 ? undefined : await existing(vectorTableName(tenantId, space));
      return table ? presentChunkIds(table, chunkIds) : new Set<string>();
    },
    async spaces(tenantId) {
      return (await tenantTables(tenantId))
        .map((name) => parseVectorTableName(name)?.space)
        .filter((s): s is string => s !== undefined);
    },
    openTable: (tenantId, space) => existing(vectorTableName(tenantId, space)),
    async listTables() {
      const result: { tenantId: string; space: string; name: string }[] = [];
      let startAfter: string | undefined;
      for (;;) {
        const page = await connection.tableNames(startAfter ? { startAfter, limit: 500 } : { limit: 500 });
        for (const name of page) {
          const parsed = parseVectorTableName(name);
          if (parsed) result.push({ ...parsed, name });
        }
        if (page.length < 500) return result;
        startAfter = page[page.length - 1];
      }
    },
    async warm(tenantId) {
      for (const name of await tenantTables(tenantId)) {
        const under = warming.get(name);
        if (under) {
          await under;
          continue;
        }
        const loading = (async () => {
          const table = await existing(name);
          if (!table) return;
          for (const index of await table.listIndices())
            if (index.columns.includes("vector")) await table.prewarmIndex(index.name);
        })();
        // What searches and later warm() calls wait on never rejects: a failed load is forgotten (the
        // next warm() tries again) and the search loads what it needs itself.
        warming.set(
          name,
          loading.catch(() => {
            if (warming.get(name) !== undefined) warming.delete(name);
          }),
        );
        await loading;
      }
    },
    exclusive: (tenantId, space, rewrite) => rewriteAlone(vectorTableName(tenantId, space), rewrite),
    async ensureTable(tenantId, space) {
      await createOrOpen(vectorTableName(tenantId, space));
    },
    async dropSpace(tenantId, space) {
      const name = vectorTableName(tenantId, space);
      tables.delete(name);
      warming.delete(name);
      budget?.remove(`vectors:${name}`);
      try {
        await connection.dropTable(name);
      } catch (error) {
        if (!/not found|does not exist/i.test(String(error))) throw error;
      }
    },
    // The bulk connection's handles live as long as the run (close() frees them), outside the budget.
    forBulkWrite: () => openVectorStore(uri, { ...options, ...BULK_WRITE_CACHES, budget: undefined }),
    close: () => connection.close(),
  };
}
