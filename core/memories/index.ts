/**
 * core/memories: the one way to write memory versions, their chunks and vectors, and edges (DESIGN
 * "Ingest", "Storage"). This file is its face: code outside the folder imports only what is named
 * here (test/architecture/import-rules.test.ts keeps it so); the modules behind it are its own.
 *
 * - The writes, one use case each: writeNewMemory / writeNewMemories (store_memory, StoreMemories,
 *   documents, REST entries; upsert-by-title follows inside), writeNewVersion (update_fact),
 *   writeEdgePair / deleteEdgePair (link, unlink), openRestore (import), eraseLineage (erasure).
 * - The worker's jobs: indexQueuedMemory, reconcileTenant, reembedTenant, purgeErased, the
 *   maintenance schedule and the job names.
 * - Rules and figures the services read: size limits, quota, the relation-type registry, the graph
 *   lock (link takes it shared), the content hash (replayed writes are found by it).
 */

export { contentSha256 } from "./content-hash.js";
export { countLineage, type LineageFootprint } from "./count-lineage.js";
/** A whole lineage, every version, chunk and edge (erasure), and its dry run. */
export { type ErasedLineage, eraseLineage } from "./erase-lineage.js";
export { lockTenantGraph } from "./graph-lock.js";
export { type IndexOutcome, indexQueuedMemory } from "./index-queued-memory.js";
export type { MemoryStatusName } from "./insert-memory-row.js";
/** An outbox event as the writes above record it (the webhook benchmark seeds its queue with it). */
export { insertOutboxEvent } from "./insert-outbox-event.js";
export type { IndexingHooks, MemoryDeps } from "./memory-deps.js";
export {
  enqueuePurgeErased,
  INDEX_MEMORY_TASK,
  MAINTAIN_VECTORS_TASK,
  PURGE_ERASED_TASK,
  RECONCILE_ALL_TASK,
  RECONCILE_TENANT_TASK,
  REEMBED_TENANT_TASK,
} from "./memory-jobs.js";
export {
  checkDocumentSize,
  checkMemorySize,
  checkUploadSize,
  MAX_MEMORY_BYTES,
  MAX_UPLOAD_CHARACTERS,
  requireContent,
} from "./memory-limits.js";
export { memoryTypeName } from "./memory-type.js";
/** The chunks a memory's content is cut into, with their index text (benchmarks measure them). */
export { type ContentSegment, chunkContent } from "./prepare-memory-content.js";
export { type PurgeReport, purgeErased } from "./purge-erased.js";
export { countMemories, lockTenantQuota, type QuotaCaller, readQuota } from "./quota.js";
export { type ReconcileReport, reconcileTenant } from "./reconcile-tenant.js";
export { type ReembedReport, reembedTenant } from "./reembed-tenant.js";
export {
  findRelationType,
  LINEAGE_REL_TYPES,
  MEMORY_KINDS,
  MEMORY_TYPES,
  type MemoryKindName,
  type MemoryTypeName,
  type NodeTag,
  REL_TYPE_PATTERN,
  RELATION_TYPES,
  type RelationType,
  SUPERSEDES,
} from "./relation-types.js";
/** Versions and edges as they were elsewhere, in batches (import). */
export {
  openRestore,
  type Restore,
  type RestoreDeps,
  type RestoredEdge,
  type RestoredVersion,
} from "./restore-versions.js";
export {
  MAINTAIN_EVERY_VERSIONS,
  runMaintenanceSweep,
  SETTLE_AFTER_MS,
  scheduleMaintenance,
  scheduleSweepAfterStart,
} from "./schedule-maintenance.js";
/** An edge and its inverse (link, unlink). */
export { deleteEdgePair, type EdgePair, type EdgePairInput, writeEdgePair } from "./write-edge-pair.js";
/** A new memory, or a batch of them: title lock, identical check, quota, inline or queued. */
export {
  type NewMemory,
  type NewMemoryOutcome,
  type WriteNewMemoryDeps,
  writeNewMemories,
  writeNewMemory,
} from "./write-new-memory.js";
/** A new version of a fact (update_fact): close the old, carry its edges over, SUPERSEDES. */
export {
  type NewVersionDeps,
  type NewVersionInput,
  type NewVersionResult,
  writeNewVersion,
} from "./write-new-version.js";
