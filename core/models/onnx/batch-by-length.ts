/**
 * Groups input indices into batches of similar length (longest first), so padding — compute spent on
 * nothing — stays small when short queries and long chunks arrive together. Results are put back in input
 * order by the caller.
 */
export function batchByLength(lengths: readonly number[], batchSize: number): number[][] {
  const order = lengths
    .map((_, index) => index)
    .sort((a, b) => (lengths[b] ?? 0) - (lengths[a] ?? 0) || a - b);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += batchSize) batches.push(order.slice(i, i + batchSize));
  return batches;
}
