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

export interface MaintainResult {
  readonly rows: number;
  readonly compacted: boolean;
  readonly indexCreated: boolean;
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
  options: { annIndexMinRows?: number; maxFragments?: number } = {},
): Promise<MaintainResult> {
  const table = await vectors.openTable(tenantId, space);
  if (!table) return { rows: 0, compacted: false, indexCreated: false };
  const stats = await table.stats();
  const rows = stats.numRows;
  let compacted = false;
  if (stats.fragmentStats.numFragments > (options.maxFragments ?? MAX_FRAGMENTS)) {
    // Keep a minute of old versions: a reader in another process may still be on one.
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
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
      await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      compacted = true;
    }
  }
  return { rows, compacted, indexCreated };
}
