import { BUILTIN_EMBEDDER_ID } from "../../models/builtin/create-builtin-embedder.js";

/**
 * When the vector channel's best hit is a near-paraphrase of the query (cosine distance below a
 * model's calibrated threshold), the vector channel's ranks outweigh full text's 33 : 1 in the
 * fusion: full text then only lifts memories the vector channel ranks about alike.
 * Why: on short texts — a sentence-long memory, the common case for an assistant — BM25 over the
 * query's words and their dictionary translations ranks many one-word overlaps alike, while a close
 * vector match is rarely wrong. Measured with `npm run eval` (docs/recall.md "Fusion"): tuned on the
 * first 500 queries of each set, checked on the rest; Tatoeba +0.02–0.03 nDCG@10 held out, XQuAD
 * within ±0.003.
 *
 * Distances are not comparable across models, so the threshold is per model and only for models we
 * measured; for any other embedder fusion stays plain RRF.
 */
const LEAD_DISTANCE: readonly { readonly idPrefix: string; readonly distance: number }[] = [
  { idPrefix: BUILTIN_EMBEDDER_ID, distance: 0.65 },
];

/** Weight the vector channel gets (on top of its base weight) at full lead. */
const LEAD_BOOST = 32;
/** Distance over which the lead fades in below the threshold, so no hard step decides alone. */
const LEAD_RAMP = 0.02;

export function vectorLeadDistance(embedderId: string): number | undefined {
  return LEAD_DISTANCE.find((entry) => embedderId.startsWith(entry.idPrefix))?.distance;
}

/** The vector channel's fusion weight for this query, given the distance of its best hit. */
export function vectorChannelWeight(
  baseWeight: number,
  leadDistance: number | undefined,
  bestDistance: number | undefined,
): number {
  if (leadDistance === undefined || bestDistance === undefined) return baseWeight;
  const lead = Math.min(1, Math.max(0, (leadDistance - bestDistance) / LEAD_RAMP));
  return baseWeight * (1 + LEAD_BOOST * lead);
}
