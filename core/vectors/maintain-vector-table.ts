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

/**
 * Each maintenance run that folds new rows into the ANN index adds a segment (LanceDB's optimize
 * indexes new rows as a delta; its TypeScript API cannot merge them), every search visits every
 * segment, and compaction cannot merge fragments that different segments cover. Past the bound the
 * index is built again over all rows. Measured (scratch run, built-in-embedder vectors, 100 xquad_de
 * questions, k = 50): grown from 5k to 10k rows in 16 runs, 17 segments and 17 fragments, 17.1 ms
 * CPU per search; rebuilt (3.3 s), 10.9 ms — ≈ 0.4 ms per extra segment.
 */
export const MAX_INDEX_SEGMENTS = 8;
/**
 * The bound that keeps a table's upkeep cheapest. A rebuild costs in proportion to the table (3.3 s
 * at 10k rows, 46 s at 100k), each segment (with the fragment it keeps apart) ≈ 0.4 ms of CPU per
 * search at 10k and 100k alike (scratch runs: 100k rows, 1 → 9 → 17 → 33 segments: 10.8 → 13.1 →
 * 18.2 → 24.7 ms), and a table written one memory at a time gains a segment per ≈ 32 rows. Rebuild
 * work per row written falls as 1/B, search work per row written grows as B × recalls per write, so
 * the cheapest B grows with the square root of the table: at ≈ 10 recalls per write, ≈ 7 at 10k and
 * ≈ 27 at 100k. Hence 8 · √(rows / 10k), at least 8 (25 at 100k: a rebuild every ≈ 800 rows).
 */
export function indexSegmentBound(rows: number): number {
  return Math.max(MAX_INDEX_SEGMENTS, Math.round(MAX_INDEX_SEGMENTS * Math.sqrt(rows / 10_000)));
}

export interface MaintainOptions {
  readonly annIndexMinRows?: number;
  readonly maxFragments?: number;
  readonly versionRetentionMs?: number;
  readonly maxIndexSegments?: number;
}

export interface MaintainResult {
  readonly rows: number;
  readonly compacted: boolean;
  readonly indexCreated: boolean;
  /** The index had more segments than indexSegmentBound allows and was built again. */
  readonly indexRebuilt: boolean;
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
  options: MaintainOptions = {},
): Promise<MaintainResult> {
  return vectors.exclusive(tenantId, space, () => maintain(vectors, tenantId, space, options));
}

/** The vector column's ANN index, as first built and as rebuilt. */
const annIndex = () => Index.hnswSq({ distanceType: "cosine" });

async function maintain(
  vectors: VectorStore,
  tenantId: string,
  space: string,
  options: MaintainOptions,
): Promise<MaintainResult> {
  const table = await vectors.openTable(tenantId, space);
  if (!table)
    return { rows: 0, compacted: false, indexCreated: false, indexRebuilt: false, versionsRemoved: 0 };
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
  let indexRebuilt = false;
  if (rows >= (options.annIndexMinRows ?? ANN_INDEX_MIN_ROWS)) {
    const vectorIndex = (await table.listIndices()).find((i) => i.columns.includes("vector"));
    if (!vectorIndex) {
      await table.createIndex("vector", { config: annIndex() });
      indexCreated = true;
    } else {
      // Rows added since the index was built are searched flat until optimize folds them in.
      if (!compacted) await optimize();
      compacted = true;
      const segments = (await table.indexStats(vectorIndex.name))?.numIndices ?? 1;
      if (segments > (options.maxIndexSegments ?? indexSegmentBound(rows))) {
        await table.createIndex("vector", { config: annIndex(), replace: true });
        indexRebuilt = true;
        // One index now covers every fragment, so compaction can merge them.
        await optimize();
      }
    }
  }
  // Old versions go even when nothing needed compacting (optimize with few fragments only prunes).
  if (!compacted) await optimize();
  return { rows, compacted, indexCreated, indexRebuilt, versionsRemoved };
}
