/**
 * Rocchio's query update for the vector channel (Rocchio 1971; dense PRF as in Li et al., "Pseudo
 * Relevance Feedback with Deep Language Models and Dense Retrievers", TOIS 2023): the unit query
 * vector plus `weight` × the unit centroid of the feedback passages (each weighted by its first-pass
 * score), normalised again. Undefined when there is nothing to move towards.
 */
export function rocchioVector(
  query: Float32Array,
  feedback: readonly { readonly vector: Float32Array; readonly weight: number }[],
  weight: number,
): Float32Array | undefined {
  const centroid = new Float32Array(query.length);
  let total = 0;
  for (const { vector, weight: w } of feedback) {
    const length = norm(vector);
    if (w <= 0 || length === 0 || vector.length !== query.length) continue;
    for (let i = 0; i < vector.length; i++)
      centroid[i] = (centroid[i] ?? 0) + ((vector[i] ?? 0) * w) / length;
    total += w;
  }
  const centroidNorm = norm(centroid);
  const queryNorm = norm(query);
  if (total === 0 || centroidNorm === 0 || queryNorm === 0) return undefined;
  const moved = new Float32Array(query.length);
  for (let i = 0; i < query.length; i++)
    moved[i] = (query[i] ?? 0) / queryNorm + (weight * (centroid[i] ?? 0)) / centroidNorm;
  const movedNorm = norm(moved);
  if (movedNorm === 0) return undefined;
  for (let i = 0; i < moved.length; i++) moved[i] = (moved[i] ?? 0) / movedNorm;
  return moved;
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}
