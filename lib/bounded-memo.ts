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
   * `space` (0 … spaces − 1) keeps keys apart — one per language — without building a prefixed key
   * for every lookup; all spaces share the capacity.
   */
  get(key: string, compute: (key: string) => V, space?: number): V;
  readonly size: number;
}

export function createBoundedMemo<V extends NonNullable<unknown> | null>(
  capacity: number,
  spaces = 1,
): BoundedMemo<V> {
  if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError("capacity must be an integer ≥ 2");
  if (!Number.isInteger(spaces) || spaces < 1) throw new RangeError("spaces must be an integer ≥ 1");
  const generation = Math.floor(capacity / 2);
  const maps = () => Array.from({ length: spaces }, () => new Map<string, V>());
  let young = maps();
  let youngSize = 0;
  let old = maps();
  let oldSize = 0;
  const keep = (space: number, key: string, value: V) => {
    if (youngSize >= generation) {
      old = young;
      oldSize = youngSize;
      young = maps();
      youngSize = 0;
    }
    (young[space] as Map<string, V>).set(key, value);
    youngSize++;
  };
  return {
    get(key, compute, space = 0) {
      const youngMap = young[space];
      if (youngMap === undefined) throw new RangeError(`space must be in [0, ${spaces})`);
      const hit = youngMap.get(key);
      if (hit !== undefined) return hit;
      const oldMap = old[space] as Map<string, V>;
      let value = oldMap.get(key);
      if (value !== undefined) {
        oldMap.delete(key);
        oldSize--;
        keep(space, key, value);
        return value;
      }
      // Kept as its own copy: a word cut from a text would keep the whole text alive (lib/own-string.ts).
      const own = ownString(key);
      value = compute(own);
      keep(space, own, value);
      return value;
    },
    get size() {
      return youngSize + oldSize;
    },
  };
}
