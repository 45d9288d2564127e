import { mkdir } from "node:fs/promises";
import * as lancedb from "@lancedb/lancedb";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import { createBatchedUpserts } from "./batched-upserts.js";
import type { SerializeCreation } from "./create-table-once.js";
import type { GroupCommitOptions } from "./group-commit.js";
import { createTableHandles } from "./lancedb-table-handles.js";
import {
  answersTableListing,
  dropTableIfExists,
  listVectorTables,
  tenantSpaces,
  tenantTableNames,
} from "./lancedb-table-names.js";
import { createSearchCoalescer } from "./search-coalesced.js";
import { serializeRewrites } from "./serialize-rewrites.js";
import { requireUuids, validityFilter } from "./vector-filters.js";
import { deleteRowsIn, keepOneCopyIn, scanRows, setValidToIn } from "./vector-row-edits.js";
import type { VectorStore } from "./vector-store.js";
import { vectorTableName } from "./vector-table-name.js";
import { warmVectorTables } from "./warm-vector-tables.js";
import { presentChunkIds } from "./write-verified.js";

export { WRITE_BATCHING } from "./batched-upserts.js";
export { OPEN_TABLE_BYTES } from "./lancedb-table-handles.js";

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

/** Opens the LanceDB database at `uri` (a folder, made if missing, or a remote URI) as the VectorStore. */
export async function openVectorStore(uri: string, options: VectorStoreOptions = {}): Promise<VectorStore> {
  const connection = await connect(uri, options);
  const handles = createTableHandles(connection, options.budget, options.serializeCreation);
  const { existing, createOrOpen, warming } = handles;
  const rewriteAlone = serializeRewrites(options.serializeRewrites);
  const { write, upsert } = createBatchedUpserts(options.onConflict, options.batching);
  const searchCoalesced = createSearchCoalescer();
  const tenantTables = (tenantId: string) => tenantTableNames(connection, tenantId);
  const tableOf = (tenantId: string, space: string) => existing(vectorTableName(tenantId, space));

  return {
    uri,
    connection,
    ping: () => answersTableListing(connection),
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
      return upsert(`${mode}:${readBack}:${name}`, { table, tenantId, rows, mode, readBack }, rows.length);
    },
    async setValidTo(tenantId, memoryIds, validTo) {
      requireUuids(memoryIds);
      if (memoryIds.length === 0) return;
      const value = validTo === null ? "NULL" : String(validTo.getTime());
      for (const name of await tenantTables(tenantId)) {
        const table = await existing(name);
        if (table) await setValidToIn(table, memoryIds, value);
      }
    },
    async delete(tenantId, memoryIds) {
      requireUuids(memoryIds);
      if (memoryIds.length === 0) return;
      for (const name of await tenantTables(tenantId)) {
        const table = await existing(name);
        if (table) await deleteRowsIn(table, "memory_id", memoryIds);
      }
    },
    async deleteChunks(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      if (chunkIds.length === 0) return;
      const table = await tableOf(tenantId, space);
      if (table) await deleteRowsIn(table, "chunk_id", chunkIds);
    },
    async keepOneCopy(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      const table = await tableOf(tenantId, space);
      if (!table || chunkIds.length === 0) return 0;
      return keepOneCopyIn(table, chunkIds, (rows) => write(table, tenantId, rows, "merge", true));
    },
    async scan(tenantId, space) {
      const table = await tableOf(tenantId, space);
      return table ? scanRows(table) : [];
    },
    async count(tenantId, space) {
      const table = await tableOf(tenantId, space);
      return table ? table.countRows() : 0;
    },
    async presentChunkIds(tenantId, space, chunkIds) {
      requireUuids(chunkIds);
      const table = chunkIds.length === 0 ? undefined : await tableOf(tenantId, space);
      return table ? presentChunkIds(table, chunkIds) : new Set<string>();
    },
    spaces: (tenantId) => tenantSpaces(connection, tenantId),
    openTable: tableOf,
    listTables: () => listVectorTables(connection),
    warm: async (tenantId) => warmVectorTables(handles, await tenantTables(tenantId)),
    exclusive: (tenantId, space, rewrite) => rewriteAlone(vectorTableName(tenantId, space), rewrite),
    async ensureTable(tenantId, space) {
      await createOrOpen(vectorTableName(tenantId, space));
    },
    async dropSpace(tenantId, space) {
      const name = vectorTableName(tenantId, space);
      handles.forget(name);
      await dropTableIfExists(connection, name);
    },
    // The bulk connection's handles live as long as the run (close() frees them), outside the budget.
    forBulkWrite: () => openVectorStore(uri, { ...options, ...BULK_WRITE_CACHES, budget: undefined }),
    close: () => connection.close(),
  };
}

/** The connection with caches of the given bounds, reading the newest table version on every read. */
async function connect(uri: string, options: VectorStoreOptions): Promise<lancedb.Connection> {
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
  return lancedb.connect(uri, { readConsistencyInterval: 0, session });
}
