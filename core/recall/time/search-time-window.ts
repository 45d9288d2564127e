import type { VectorHit } from "../../vectors/vector-store.js";
import type { QueryTime } from "./parse-query-time.js";

/** A vector search with an extra LanceDB predicate (search-vectors.ts's VectorSearch). */
type Search = (k: number, where: string) => Promise<VectorHit[]>;

/**
 * The time channel (ADR 0610): the query vector's nearest chunks among those whose valid time lies in
 * the query's interval. The boost (time-boost.ts) can only reorder what the channels found; in a
 * workspace of months of conversation "what did we talk about yesterday?" finds turns about talking
 * from any day, and yesterday's are not among them. Searched with the same vector and depth as the
 * vector channel, so its hits carry true distances and fuse as vector hits.
 */
export async function searchTimeWindow(
  search: Search,
  time: Pick<QueryTime, "from" | "to">,
  depth: number,
  /** The window only adds candidates: a failed search is reported here and finds nothing. */
  failed: (error: unknown) => void,
): Promise<VectorHit[]> {
  const from = time.from.getTime();
  const to = time.to.getTime();
  if (!Number.isFinite(from) || !Number.isFinite(to) || !(from < to)) return [];
  try {
    return await search(depth, `valid_from >= ${from} AND valid_from < ${to}`);
  } catch (error) {
    failed(error);
    return [];
  }
}

/**
 * The vector channel's hits with the window's added, nearest first: each chunk once (the same vector
 * gives it the same distance in both), the channel's own hits ahead of the window's at equal distance.
 */
export function mergeVectorHits(channel: readonly VectorHit[], window: readonly VectorHit[]): VectorHit[] {
  const seen = new Set(channel.map((h) => h.chunkId));
  const added = window.filter((h) => !seen.has(h.chunkId));
  if (added.length === 0) return [...channel];
  // Array.prototype.sort is stable: ties keep the channel's order, then the window's.
  return [...channel, ...added].sort((a, b) => a.distance - b.distance);
}
