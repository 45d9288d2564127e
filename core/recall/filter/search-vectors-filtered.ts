import type { VectorHit } from "../../vectors/vector-store.js";
import { overfetchFactors } from "./overfetch-factors.js";
import type { ResolvedRecallFilter } from "./resolve-recall-filter.js";

/** One vector search of the query: k rows, with an optional extra LanceDB predicate. */
export type VectorSearch = (k: number, where?: string) => Promise<VectorHit[]>;

const OVERFETCH_MAX = 1000;

/**
 * The vector channel's top `depth` among matching memories (ADR 0220). Listed ids of a selective
 * filter pre-filter the LanceDB search (`memory_id IN (…)`; with an ANN index LanceDB searches only
 * the allowed rows), so the depth is met whenever that many matching chunks have vectors. A broad
 * filter (or one with too many matches to list) over-fetches and keeps the matching rows; when fewer
 * than `depth` match within OVERFETCH_MAX rows the channel has fewer candidates (full text stays exact).
 */
export async function searchVectorsFiltered(
  search: VectorSearch,
  depth: number,
  filter: Pick<ResolvedRecallFilter, "memoryIds" | "vectorWhere" | "share">,
  keepMemories: (memoryIds: readonly string[]) => Promise<Set<string>>,
): Promise<VectorHit[]> {
  if (filter.memoryIds?.length === 0) return [];
  const factors = overfetchFactors(filter.share);
  if (filter.vectorWhere !== undefined && factors.length === 0) return search(depth, filter.vectorWhere);
  let matching: VectorHit[] = [];
  for (const factor of factors) {
    const limit = Math.min(depth * factor, OVERFETCH_MAX);
    const hits = await search(limit);
    const kept = await keepMemories([...new Set(hits.map((h) => h.memoryId))]);
    matching = hits.filter((h) => kept.has(h.memoryId));
    if (matching.length >= depth || hits.length < limit) return matching.slice(0, depth);
    if (limit === OVERFETCH_MAX) break;
  }
  // Listed ids: the pre-filtered search is exact where over-fetching fell short.
  if (filter.vectorWhere !== undefined) return search(depth, filter.vectorWhere);
  return matching.slice(0, depth);
}
