import { ownString } from "./own-string.js";

/**
 * A memo of at most `capacity` entries that keeps what is used often: two generations of
 * capacity / 2 each; a hit in the older one moves the entry to the younger, and when the younger is
 * full the older is dropped and the younger takes its place. An approximate LRU at the cost of two
 * Map lookups on a miss — no list, no per-entry bookkeeping.
 *
 * Replaces "clear the Map when full" for the built-in models' per-word memos: those needed limits of
 * 100k–200k entries to keep a useful hit rate after each clear, and a large import of texts full of
 * one-off words (ids, numbers, hashes) filled them all — ≈ 70 MB of live heap in the process serving
 * the import (issue 20). Frequent words survive here at a fraction of the size.
 */
export interface BoundedMemo<V extends NonNullable<unknown> | null> {
  /**
   * The memoised value of `key`, computing and keeping it on a miss. `compute` gets the key as the
   * memo keeps it (a copy sharing no memory with a text it was cut from): derive the value from that.
   */
  get(key: string, compute: (key: string) => V): V;
  readonly size: number;
}

export function createBoundedMemo<V extends NonNullable<unknown> | null>(capacity: number): BoundedMemo<V> {
  if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError("capacity must be an integer ≥ 2");
  const generation = Math.floor(capacity / 2);
  let young = new Map<string, V>();
  let old = new Map<string, V>();
  const keep = (key: string, value: V) => {
    if (young.size >= generation) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
  };
  return {
    get(key, compute) {
      const hit = young.get(key);
      if (hit !== undefined) return hit;
      let value = old.get(key);
      if (value !== undefined) {
        old.delete(key);
        keep(key, value);
        return value;
      }
      // Kept as its own copy: a word cut from a text would keep the whole text alive (lib/own-string.ts).
      const own = ownString(key);
      value = compute(own);
      keep(own, value);
      return value;
    },
    get size() {
      return young.size + old.size;
    },
  };
}
