import type { Pooling } from "./read-model-dir.js";

/**
 * Sentence vectors from token states [batch, sequence, hidden] as sentence-transformers computes them.
 * Sequences are right-padded, so the real tokens of row b are positions 0 … lengths[b] - 1 (exactly where
 * the attention mask is 1); padding never enters a mean or a max.
 */
export function poolTokenStates(
  states: Float32Array,
  dims: readonly number[],
  lengths: readonly number[],
  pooling: Pooling,
): Float32Array[] {
  const [batch, sequence, hidden] = dims;
  if (dims.length !== 3 || batch !== lengths.length || sequence === undefined || hidden === undefined) {
    throw new RangeError(
      `token states of shape [${dims.join(", ")}] do not match a batch of ${lengths.length}`,
    );
  }
  return lengths.map((length, b) => {
    const row = b * sequence * hidden;
    const out = new Float32Array(hidden);
    if (pooling === "cls") {
      out.set(states.subarray(row, row + hidden));
      return out;
    }
    if (pooling === "max") out.fill(Number.NEGATIVE_INFINITY);
    for (let t = 0; t < length; t++) {
      const offset = row + t * hidden;
      for (let j = 0; j < hidden; j++) {
        const value = states[offset + j] as number;
        out[j] = pooling === "max" ? Math.max(out[j] as number, value) : (out[j] as number) + value;
      }
    }
    if (pooling === "mean")
      for (let j = 0; j < hidden; j++) out[j] = (out[j] as number) / Math.max(1, length);
    return out;
  });
}
