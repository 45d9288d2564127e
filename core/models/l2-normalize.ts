/**
 * Scales a vector to unit length in place and returns it (the EmbeddingProvider contract: vectors are
 * L2-normalised, so cosine similarity is a dot product). A zero vector stays zero rather than becoming NaN.
 */
export function l2NormalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) ** 2;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}
