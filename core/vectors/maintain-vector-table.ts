import { Index } from "@lancedb/lancedb";
import type { VectorStore } from "./vector-store.js";

/**
 * Rows from which a (tenant, space) table gets an ANN index: about where a flat search starts to cost
 * more than an indexed one. LanceDB's flat search with the validity prefilter grows much faster than
 * the rows (2026-11-28, one table of built-in-embedder vectors, k = 50, CPU per search: 1k rows
 * 6–9 ms, 1.5k 22–31 ms, 2k 22–30 ms, 3k 67 ms, 4k 100–160 ms; the HNSW-SQ index 7–11 ms at each of
 * these sizes, built in 0.16 s at 1k and 1.3 s at 4k, 0.992–0.997 of the exact top 50), so a
 * workspace of a few thousand memories spent most of each recall's CPU in it (3k memories: 115 ms of
 * CPU per recall, 35 ms with the index). At 1k rows the two cost the same (6–9 against 7.5 ms).
 * bench/vector-search-cost.ts --rows; docs/ingest.md "ANN index". It was 5,000 after an older
 * LanceDB measured ≈ 15–30 ms flat there.
 */
export const ANN_INDEX_MIN_ROWS = 1_200;

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
  /**
   * A run asked for while writes go on (requestVectorMaintenance): it folds the new rows into the index
   * but leaves a rebuild to the settling run once writes pause, unless the index has twice the
   * bound's segments. A rebuild costs in proportion to the table and, made while a bulk load writes,
   * took the load's CPU: 10k memories, the rebuild at 9.7k rows ran 9.7 s and its compaction 6.3 s
   * beside the writes (issue #23). The deltas meanwhile cost searches ≈ 0.4 ms per extra segment.
   */
  readonly duringWrites?: boolean;
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

/**
 * HNSW candidates per insert while building. LanceDB's default is 300; 150 kept the same share of an
 * exact search's top 50 and top 10 (0.920 / 0.945 against 0.922 / 0.944 over 100 xquad_de and 100
 * covidqa_en questions, 10k built-in-embedder vectors, the store's search settings) for 64–84 % of
 * the build CPU (two runs: 5.0 / 7.8 s and 5.4 / 6.5 s); 100 lost ≈ 1 % of the top 50 (0.912), m = 16
 * instead of 20 ≈ 2.5 %. `npm run bench:ann-build` (bench/results/ann-build-cost.json).
 */
export const EF_CONSTRUCTION = 150;

/** The vector column's ANN index, as first built and as rebuilt. */
const annIndex = () => Index.hnswSq({ distanceType: "cosine", efConstruction: EF_CONSTRUCTION });

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
  /** One index over every row; then compaction can merge the fragments the old segments kept apart. */
  const rebuildIndex = async () => {
    await table.createIndex("vector", { config: annIndex(), replace: true });
    await optimize();
  };
  const indexed = rows >= (options.annIndexMinRows ?? ANN_INDEX_MIN_ROWS);
  const vectorIndex = indexed
    ? (await table.listIndices()).find((i) => i.columns.includes("vector"))
    : undefined;
  // Read before any optimize: compaction folds new rows into the index too.
  const coverage = vectorIndex === undefined ? undefined : await table.indexStats(vectorIndex.name);
  if (coverage !== undefined && coverage.numUnindexedRows > coverage.numIndexedRows) {
    // More new rows than indexed ones (an import, a load between two runs): a delta would keep the
    // partitions and quantizer trained on the smaller table for most of the rows. Bench:recall's
    // 1k → 10k → 100k fill, the 90k rows as one delta: vector stage p50 27 ms against 12 ms for an
    // index built over all 100k. A rebuild here costs what the rows cost to add, so over a tenant's
    // growth by doublings at most about twice its final size.
    await rebuildIndex();
    return { rows, compacted: true, indexCreated: false, indexRebuilt: true, versionsRemoved };
  }
  let compacted = false;
  if (stats.fragmentStats.numFragments > (options.maxFragments ?? MAX_FRAGMENTS)) {
    await optimize();
    compacted = true;
  }
  let indexCreated = false;
  let indexRebuilt = false;
  if (indexed) {
    if (!vectorIndex) {
      await table.createIndex("vector", { config: annIndex() });
      indexCreated = true;
    } else {
      // Rows added since the index was built are searched flat until optimize folds them in.
      if (!compacted) await optimize();
      compacted = true;
      const segments = (await table.indexStats(vectorIndex.name))?.numIndices ?? 1;
      const bound = options.maxIndexSegments ?? indexSegmentBound(rows);
      if (segments > (options.duringWrites ? 2 * bound : bound)) {
        await rebuildIndex();
        indexRebuilt = true;
      }
    }
  }
  // Old versions go even when nothing needed compacting (optimize with few fragments only prunes).
  if (!compacted) await optimize();
  return { rows, compacted, indexCreated, indexRebuilt, versionsRemoved };
}
