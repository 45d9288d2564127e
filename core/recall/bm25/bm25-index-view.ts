import type { Bm25IndexEntry } from "./bm25-index-entry.js";
import type { LengthNormalisation } from "./bm25-parameters.js";
import type { ScoredChunk, WeightedTerm } from "./scored-chunk.js";

/** Which of the current chunks a view's search may return. */
export interface ViewRestriction {
  /** Only these chunks (a recall filter). */
  readonly allowedChunkIds?: Iterable<string> | undefined;
  /** Only chunks already valid at this time (point-in-time recall: the current part of it). */
  readonly validAt?: Date | undefined;
}

/** A tenant's index as one recall's snapshot sees it. */
export interface Bm25IndexView {
  /**
   * Exact top k over the current chunks the snapshot sees (optionally restricted); undefined when
   * another recall has moved the shared index past this snapshot meanwhile (the caller uses SQL).
   */
  search(
    terms: readonly WeightedTerm[],
    norm: LengthNormalisation,
    k: number,
    restriction?: ViewRestriction,
  ): ScoredChunk[] | undefined;
}

/** How many searches the views answered, and how many they sent back to SQL. */
export interface ViewCounters {
  served: number;
  fellBack: number;
}

/**
 * A view of `entry` for one recall. `stillCurrent` (given for a held index, which other recalls may
 * move on) says whether the index still matches the recall's snapshot; an index built for this recall
 * alone has none.
 */
export function viewOfBm25Index(
  entry: Bm25IndexEntry,
  stillCurrent: (() => boolean) | undefined,
  counters: ViewCounters,
): Bm25IndexView {
  return {
    search(terms, norm, k, { allowedChunkIds, validAt } = {}) {
      // Between the catch-up and now, another recall may have applied transactions this one does not see.
      if (stillCurrent !== undefined && !stillCurrent()) {
        counters.fellBack++;
        return undefined;
      }
      counters.served++;
      const allowed = allowedChunkIds === undefined ? undefined : entry.index.allow(allowedChunkIds);
      // A JavaScript Date holds milliseconds; valid_from is kept in microseconds.
      const validAtUs = validAt === undefined ? undefined : validAt.getTime() * 1000;
      return entry.index.search(terms, norm, k, { allowed, validAtUs });
    },
  };
}
