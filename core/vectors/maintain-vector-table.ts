import { Index } from "@lancedb/lancedb";
import type { VectorStore } from "./vector-store.js";

/**
 * Rows from which a (tenant, space) table gets an ANN index. Below it a flat (exact) search stays
 * within recall's budget (≈ 15–30 ms at 5k rows on 2 cores) and an index would only cost build time
 * and some recall; above it flat search grows ≈ 6 µs per row (10k rows ≈ 150–250 ms) while the
 * index answers in ≈ 4 ms and builds in ≈ 10 s at 5k rows. Measured by `npm run bench:ingest`
 * (bench/results/ingest.json, "vectorIndex"; docs/ingest.md "ANN index").
 */
export const ANN_INDEX_MIN_ROWS = 5_000;

/** Every append makes a fragment; past this many, searches slow down and the table is compacted. */
export const MAX_FRAGMENTS = 16;

/**
 * How long a superseded table version is kept for readers still on it (a search resolves the latest
 * version and reads it within milliseconds; reconcile's scan within seconds). Every commit writes a
 * manifest listing all fragments, so versions kept forever grew to 4.2 GB of manifests for 79 MB of
 * vectors in a bulk load (issue #23); each maintenance run prunes what is older than this. What stays
 * is about retention × commit rate manifests: with 30 s, a 10k-memory bulk load ended with 708
 * versions, 8.1 MB of manifests for 41 MB of live vectors (bench:recall's bulkIngest row); with 10 s,
 * 216 versions and 2.1 MB (bench/results/bulk-ingest.json).
 */
export const VERSION_RETENTION_MS = 10_000;

export interface MaintainResult {
  readonly rows: number;
  readonly compacted: boolean;
  readonly indexCreated: boolean;
  /** Old versions removed by this run. */
  readonly versionsRemoved: number;
}

/**
 * Worker-only upkeep of one chunk-vector table, never on the request path (DESIGN "Storage"):
 * compaction of the small fragments single-memory writes leave behind (which also folds new rows into
 * an existing index), and an HNSW-SQ index on the vector column once the table is large enough.
 */
export async function maintainVectorTable(
  vectors: VectorStore,
  tenantId: string,
  space: string,
  options: { annIndexMinRows?: number; maxFragments?: number; versionRetentionMs?: number } = {},
): Promise<MaintainResult> {
  return vectors.exclusive(tenantId, space, () => maintain(vectors, tenantId, space, options));
}

async function maintain(
  vectors: VectorStore,
  tenantId: string,
  space: string,
  options: { annIndexMinRows?: number; maxFragments?: number; versionRetentionMs?: number },
): Promise<MaintainResult> {
  const table = await vectors.openTable(tenantId, space);
  if (!table) return { rows: 0, compacted: false, indexCreated: false, versionsRemoved: 0 };
  const stats = await table.stats();
  const rows = stats.numRows;
  const cleanupOlderThan = () => new Date(Date.now() - (options.versionRetentionMs ?? VERSION_RETENTION_MS));
  let versionsRemoved = 0;
  const optimize = async () => {
    const result = await table.optimize({ cleanupOlderThan: cleanupOlderThan() });
    versionsRemoved += result.prune.oldVersionsRemoved;
  };
  let compacted = false;
  if (stats.fragmentStats.numFragments > (options.maxFragments ?? MAX_FRAGMENTS)) {
    await optimize();
    compacted = true;
  }
  let indexCreated = false;
  if (rows >= (options.annIndexMinRows ?? ANN_INDEX_MIN_ROWS)) {
    const indices = await table.listIndices();
    if (!indices.some((i) => i.columns.includes("vector"))) {
      await table.createIndex("vector", { config: Index.hnswSq({ distanceType: "cosine" }) });
      indexCreated = true;
    } else if (!compacted) {
      // Rows added since the index was built are searched flat until optimize folds them in.
      await optimize();
      compacted = true;
    }
  }
  // Old versions go even when nothing needed compacting (optimize with few fragments only prunes).
  if (!compacted) await optimize();
  return { rows, compacted, indexCreated, versionsRemoved };
}
