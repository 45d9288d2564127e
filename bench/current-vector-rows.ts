import { randomUUID } from "node:crypto";
import type { ChunkVectorRow } from "../core/vectors/vector-store.js";

/** Vector rows of fresh chunks, one per vector, each its own memory, valid from now and current. */
export function currentVectorRows(vectors: readonly Float32Array[]): ChunkVectorRow[] {
  const validFrom = new Date();
  return vectors.map((vector) => ({
    chunkId: randomUUID(),
    memoryId: randomUUID(),
    vector,
    validFrom,
    validTo: null,
  }));
}
