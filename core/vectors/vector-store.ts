import type * as lancedb from "@lancedb/lancedb";
import type { ChunkVectorRow } from "./chunk-vector-schema.js";
import type { VectorHit } from "./search-coalesced.js";

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
 * "Storage"). This is the API recall, graph and ingest call; docs/ingest.md documents it. Opened by
 * openVectorStore (lancedb-vector-store.ts), its LanceDB adapter.
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
