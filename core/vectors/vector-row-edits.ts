import type * as lancedb from "@lancedb/lancedb";
import type { ChunkVectorRow } from "./chunk-vector-schema.js";
import { readChunkVectorRows } from "./read-chunk-vector-rows.js";
import { idListFilter, inBatches } from "./vector-filters.js";
import type { VectorRowInfo } from "./vector-store.js";

/** Sets valid_to (epoch milliseconds, or "NULL") on the memories' rows of one table, in batches. */
export async function setValidToIn(
  table: lancedb.Table,
  memoryIds: readonly string[],
  value: string,
): Promise<void> {
  for (const batch of inBatches(memoryIds)) {
    await table.update({ where: idListFilter("memory_id", batch), valuesSql: { valid_to: value } });
  }
}

/** Deletes the rows whose `column` is one of `ids`, in batches. */
export async function deleteRowsIn(
  table: lancedb.Table,
  column: "memory_id" | "chunk_id",
  ids: readonly string[],
): Promise<void> {
  for (const batch of inBatches(ids)) await table.delete(idListFilter(column, batch));
}

/**
 * Leaves one row per chunk id where a chunk's vector was written twice: the copies are read, deleted,
 * and one is written back merged on chunk_id (`writeMerged`). Returns how many chunk ids it rewrote.
 */
export async function keepOneCopyIn(
  table: lancedb.Table,
  chunkIds: readonly string[],
  writeMerged: (rows: ChunkVectorRow[]) => Promise<unknown>,
): Promise<number> {
  let rewritten = 0;
  for (const batch of inBatches(chunkIds)) {
    const one = new Map<string, ChunkVectorRow>();
    for (const r of await readChunkVectorRows(table, batch)) if (!one.has(r.chunkId)) one.set(r.chunkId, r);
    if (one.size === 0) continue;
    // Two commits: a search between them misses these chunks for milliseconds, where deleting
    // every copy and re-embedding later left them unfindable until the next sweep.
    await table.delete(idListFilter("chunk_id", [...one.keys()]));
    await writeMerged([...one.values()]);
    rewritten += one.size;
  }
  return rewritten;
}

/** Every row of one table without its vector. */
export async function scanRows(table: lancedb.Table): Promise<VectorRowInfo[]> {
  const rows = (await table.query().select(["chunk_id", "memory_id", "valid_to"]).toArray()) as {
    chunk_id: string;
    memory_id: string;
    valid_to: number | null;
  }[];
  return rows.map((r) => ({ chunkId: r.chunk_id, memoryId: r.memory_id, validTo: r.valid_to ?? null }));
}
