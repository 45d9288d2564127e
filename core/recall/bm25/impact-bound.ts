import { B, K1, MAX_TF_PART, tfPart } from "./bm25-parameters.js";

/**
 * Bounds on a posting's term-frequency part at the current average length `avgdl`, given only that its
 * stored impact (the same formula at the tenant's `keyAvgdl`) is at most `impact`. Postings are read in
 * impact order, so the last impact read bounds every posting not yet read; these bounds turn that into
 * a bound on real scores although impacts were computed with an older average.
 */

// Impacts are stored as float4 (≈ 7 digits): widen every bound by more than that rounding.
const FLOAT4_SLACK = 1 + 1e-6;

/** For a posting of unknown length: tfPart grows with avgdl by at most avgdl / keyAvgdl. */
export function tfPartBound(impact: number, avgdl: number, keyAvgdl: number): number {
  return Math.min(MAX_TF_PART, impact * FLOAT4_SLACK * Math.max(1, avgdl / keyAvgdl));
}

/**
 * For a chunk whose length is known (seen in another term's list): the largest tf whose impact could
 * still be ≤ `impact`, scored at the current average. Tighter than tfPartBound.
 */
export function tfPartBoundForLength(
  impact: number,
  docLen: number,
  avgdl: number,
  keyAvgdl: number,
): number {
  if (impact <= 0) return 0;
  const widened = impact * FLOAT4_SLACK;
  if (widened >= MAX_TF_PART) return MAX_TF_PART;
  // impact = (k1+1) tf / (tf + n) with n = k1 (1 - b + b dl / keyAvgdl)  ⇒  tf = impact n / (k1+1 - impact)
  const norm = K1 * (1 - B + (B * docLen) / keyAvgdl);
  const maxTf = (widened * norm) / (MAX_TF_PART - widened);
  return Math.min(MAX_TF_PART, tfPart(maxTf, docLen, avgdl) * FLOAT4_SLACK);
}
