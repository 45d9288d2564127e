import type * as lancedb from "@lancedb/lancedb";
import type { ChunkVectorRow } from "./chunk-vector-schema.js";
import { idListFilter } from "./vector-filters.js";

interface StoredRow {
  chunk_id: string;
  memory_id: string;
  valid_from: number;
  valid_to: number | null;
  vector: { toArray(): Float32Array };
}

/**
 * The stored rows of the given chunk ids (one list-filter's worth: callers batch with inBatches), as
 * rows a write takes back: for rewriting rows in place (purge, reconcile's duplicates).
 */
export async function readChunkVectorRows(
  table: lancedb.Table,
  chunkIds: readonly string[],
): Promise<ChunkVectorRow[]> {
  const rows = (await table.query().where(idListFilter("chunk_id", chunkIds)).toArray()) as StoredRow[];
  return rows.map((r) => ({
    chunkId: r.chunk_id,
    memoryId: r.memory_id,
    vector: Float32Array.from(r.vector.toArray()),
    validFrom: new Date(Number(r.valid_from)),
    validTo: r.valid_to === null ? null : new Date(Number(r.valid_to)),
  }));
}
