/**
 * A sorted string table (sorted-string-table.ts) whose keys live in memory and whose values stay in the
 * cache file, read with one positioned read per lookup (issue #20: the two translation tables' values are
 * 36 of the lexicon's 49 MB, and every process that embeds kept all of them resident). The operating
 * system's page cache holds the values that are used — shared, and reclaimable under memory pressure
 * — and the word memos in front of the lexicon keep a lookup off the file for common words. ADR 0310.
 */
import { closeSync, readSync } from "node:fs";
import type { StringLookup } from "./sorted-string-table.js";

const TAB = 0x09;
const NEWLINE = 0x0a;

/**
 * Byte order of `key` against keys[start, end). In JavaScript, not Buffer#compare: a lookup makes ≈ 20
 * comparisons of a few bytes, where a call into C++ each time costs more than the comparison.
 */
function compareKey(key: Buffer, keys: Buffer, start: number, end: number): number {
  const length = end - start;
  const shared = Math.min(key.length, length);
  for (let index = 0; index < shared; index++) {
    const difference = (key[index] ?? 0) - (keys[start + index] ?? 0);
    if (difference !== 0) return difference;
  }
  return key.length - length;
}

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
  let lineCount = 0;
  let keyBytes = 0;
  for (let lineStart = 0; lineStart < lines.length; ) {
    let end = lines.indexOf(NEWLINE, lineStart);
    if (end < 0) end = lines.length;
    const tab = lines.indexOf(TAB, lineStart);
    keyBytes += (tab < 0 || tab > end ? end : tab) - lineStart;
    lineCount++;
    lineStart = end + 1;
  }
  const keys = Buffer.allocUnsafe(keyBytes);
  // Key i is keys[keyStarts[i], keyStarts[i + 1]); its line is lines[lineStarts[i], lineStarts[i + 1] - 1)
  // and its value the rest of that line after the key and its tab.
  const keyStarts = new Int32Array(lineCount + 1);
  const lineStarts = new Int32Array(lineCount + 1);
  let line = 0;
  let written = 0;
  let lineStart = 0;
  for (; lineStart < lines.length; line++) {
    let end = lines.indexOf(NEWLINE, lineStart);
    if (end < 0) end = lines.length;
    let tab = lines.indexOf(TAB, lineStart);
    if (tab < 0 || tab > end) tab = end;
    keyStarts[line] = written;
    lineStarts[line] = lineStart;
    written += lines.copy(keys, written, lineStart, tab);
    lineStart = end + 1;
  }
  keyStarts[lineCount] = written;
  lineStarts[lineCount] = lineStart;

  const find = (key: string): number => {
    const wanted = Buffer.from(key, "utf8");
    let low = 0;
    let high = lineCount - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = compareKey(wanted, keys, keyStarts[middle] ?? 0, keyStarts[middle + 1] ?? 0);
      if (order === 0) return middle;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return -1;
  };
  let scratch = Buffer.allocUnsafe(4096);
  return {
    size: lineCount,
    has: (key) => find(key) >= 0,
    get(key) {
      const index = find(key);
      if (index < 0) return undefined;
      const keyLength = (keyStarts[index + 1] ?? 0) - (keyStarts[index] ?? 0);
      const valueStart = (lineStarts[index] ?? 0) + keyLength + 1;
      const length = Math.max(0, (lineStarts[index + 1] ?? 0) - 1 - valueStart);
      if (length === 0) return "";
      if (length > scratch.length) scratch = Buffer.allocUnsafe(length);
      const read = readSync(file.fd, scratch, 0, length, sectionOffset + valueStart);
      // The cache is written once and renamed into place; a short read means someone cut the file.
      if (read !== length)
        throw new Error(`lexicon cache file changed underneath (read ${read} of ${length} bytes)`);
      return scratch.toString("utf8", 0, length);
    },
  };
}
