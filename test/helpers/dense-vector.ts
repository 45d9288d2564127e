/**
 * A dense pseudo-random unit vector, distinct and repeatable per `i`. Sparse axis vectors are nearly
 * orthogonal to one another, a case where an approximate (HNSW) search may miss the exact row.
 */
export function denseVector(i: number, dim = 1024): Float32Array {
  let state = (i + 1) * 2654435761;
  const v = Float32Array.from({ length: dim }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
