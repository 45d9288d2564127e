import { STORED_VECTOR_DIM } from "./embedding-provider.js";

/**
 * Zero-pads a vector to the stored dimension (DESIGN.md, Ingest: "a smaller model's vector is zero-padded
 * (cosine unchanged)"). A longer vector cannot be stored without changing its geometry, so it is refused.
 */
export function padToStoredDim(vector: Float32Array, storedDim: number = STORED_VECTOR_DIM): Float32Array {
  if (vector.length === storedDim) return vector;
  if (vector.length > storedDim) {
    throw new RangeError(`vector has ${vector.length} dimensions, more than the stored ${storedDim}`);
  }
  const padded = new Float32Array(storedDim);
  padded.set(vector);
  return padded;
}
