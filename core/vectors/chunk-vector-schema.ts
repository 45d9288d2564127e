import { Field, FixedSizeList, Float32, Float64, Schema, Utf8 } from "apache-arrow";
import { STORED_VECTOR_DIM } from "../models/embedding-provider.js";
import { padToStoredDim } from "../models/pad-to-stored-dim.js";

/** A chunk's vector as the ingest path writes it (docs/ingest.md, "Vector API"). */
export interface ChunkVectorRow {
  readonly chunkId: string;
  readonly memoryId: string;
  /** STORED_VECTOR_DIM long, or shorter (zero-padded on write: cosine is unchanged). */
  readonly vector: Float32Array;
  readonly validFrom: Date;
  readonly validTo: Date | null;
}

/**
 * Columns of a chunk-vector table. Validity is epoch milliseconds as Float64 (exact up to 2^53) so
 * filters stay plain numeric comparisons; tenant_id is redundant with the table but keeps a row
 * self-describing for exports and reconcile.
 */
export const CHUNK_VECTOR_SCHEMA = new Schema([
  new Field("chunk_id", new Utf8(), false),
  new Field("memory_id", new Utf8(), false),
  new Field("tenant_id", new Utf8(), false),
  new Field("valid_from", new Float64(), false),
  new Field("valid_to", new Float64(), true),
  new Field("vector", new FixedSizeList(STORED_VECTOR_DIM, new Field("item", new Float32(), true)), false),
]);

export type ChunkVectorRecord = {
  chunk_id: string;
  memory_id: string;
  tenant_id: string;
  valid_from: number;
  valid_to: number | null;
  vector: number[];
};

export function toChunkVectorRecord(tenantId: string, row: ChunkVectorRow): ChunkVectorRecord {
  return {
    chunk_id: row.chunkId,
    memory_id: row.memoryId,
    tenant_id: tenantId,
    valid_from: row.validFrom.getTime(),
    valid_to: row.validTo === null ? null : row.validTo.getTime(),
    vector: Array.from(padToStoredDim(row.vector)),
  };
}
