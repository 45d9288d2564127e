/** From this share of matching chunks on, a filtered search over-fetches (about 2 / share). */
export const OVERFETCH_MIN_SHARE = 0.2;
/** Over-fetch rounds when the share is unknown: k × each factor. */
const UNKNOWN_SHARE_FACTORS = [4, 16] as const;

/**
 * Over-fetch factors for a filter's share of the tenant's chunks (ADR 0220): none below
 * OVERFETCH_MIN_SHARE, where restricting the search to the matching chunks is cheaper.
 */
export function overfetchFactors(share: number | undefined): readonly number[] {
  if (share === undefined) return UNKNOWN_SHARE_FACTORS;
  if (share < OVERFETCH_MIN_SHARE) return [];
  const first = Math.ceil(2 / share);
  return [first, first * 4];
}
