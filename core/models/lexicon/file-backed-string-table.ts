/**
 * A sorted string table (sorted-string-table.ts) whose keys live in memory and whose values stay in the
 * cache file, read with one positioned read per lookup (issue #20: the two translation tables' values are
 * 36 of the lexicon's 49 MB, and every process that embeds kept all of them resident). The operating
 * system's page cache holds the values that are used — shared, and reclaimable under memory pressure
 * — and the word memos in front of the lexicon keep a lookup off the file for common words. ADR 0310.
 */
import { closeSync, readSync } from "node:fs";
import { indexSortedLines, type StringLookup } from "./sorted-string-table.js";

/** An open cache file, shared by the tables read from it; closed once none of them is referenced. */
export interface OpenCacheFile {
  readonly fd: number;
}

/** Tests load many lexicons: each file descriptor is closed when its tables are collected. */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
});

/** Closes `file`'s descriptor once no table read from it is referenced any more. */
export function closeWhenUnused(file: OpenCacheFile): void {
  descriptors.register(file, file.fd);
}

/**
 * Wraps the section `lines` (`key \t value \n`, sorted) that starts at byte `sectionOffset` of `file`:
 * copies the keys out and remembers where each value lies. `lines` may be dropped after the call.
 */
export function openFileBackedStringTable(
  file: OpenCacheFile,
  lines: Buffer,
  sectionOffset: number,
): StringLookup {
  const index = indexSortedLines(lines);
  let scratch = Buffer.allocUnsafe(4096);
  return {
    size: index.size,
    has: (key) => index.find(key) >= 0,
    hasKeyStartingWith: (prefix) => index.hasKeyStartingWith(prefix),
    get(key) {
      const line = index.find(key);
      if (line < 0) return undefined;
      const start = index.valueStart(line);
      const length = index.valueEnd(line) - start;
      if (length === 0) return "";
      if (length > scratch.length) scratch = Buffer.allocUnsafe(length);
      const read = readSync(file.fd, scratch, 0, length, sectionOffset + start);
      // The cache is written once and renamed into place; a short read means someone cut the file.
      if (read !== length)
        throw new Error(`lexicon cache file changed underneath (read ${read} of ${length} bytes)`);
      return scratch.toString("utf8", 0, length);
    },
  };
}
