import {
  Field,
  FixedSizeList,
  Float32,
  Float64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
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

/**
 * Rows as one Arrow table over a single Float32Array of all vectors: handing LanceDB plain objects
 * would box 1,024 numbers per row and convert them back, which cost more than the write itself.
 */
export function toChunkVectorTable(tenantId: string, rows: readonly ChunkVectorRow[]): Table {
  const n = rows.length;
  const flat = new Float32Array(n * STORED_VECTOR_DIM);
  rows.forEach((row, i) => {
    flat.set(padToStoredDim(row.vector), i * STORED_VECTOR_DIM);
  });
  const column = (name: string) => {
    const field = CHUNK_VECTOR_SCHEMA.fields.find((f) => f.name === name);
    if (!field) throw new Error(`no column ${name}`);
    return field;
  };
  const utf8 = (values: string[]) => vectorFromArray(values, new Utf8()).data[0];
  const float64 = (values: (number | null)[]) => vectorFromArray(values, new Float64()).data[0];
  const vectorType = column("vector").type as FixedSizeList<Float32>;
  const children = [
    utf8(rows.map((r) => r.chunkId)),
    utf8(rows.map((r) => r.memoryId)),
    utf8(rows.map(() => tenantId)),
    float64(rows.map((r) => r.validFrom.getTime())),
    float64(rows.map((r) => (r.validTo === null ? null : r.validTo.getTime()))),
    makeData({
      type: vectorType,
      length: n,
      nullCount: 0,
      child: makeData({ type: new Float32(), length: n * STORED_VECTOR_DIM, nullCount: 0, data: flat }),
    }),
  ];
  if (children.some((c) => c === undefined)) throw new Error("could not build vector columns");
  const struct = makeData({
    type: new Struct(CHUNK_VECTOR_SCHEMA.fields),
    length: n,
    nullCount: 0,
    children: children as NonNullable<(typeof children)[number]>[],
  });
  return new Table([new RecordBatch(CHUNK_VECTOR_SCHEMA, struct)]);
}
