/**
 * A read-only string → string map stored as one UTF-8 buffer of sorted `key \t value \n` lines, its
 * keys copied into one buffer with two arrays of offsets, searched by binary search. The full lexicon
 * has ≈ 700k keys: as JS strings in a Map it would cost well over 100 MB per worker thread, this way
 * it costs its byte size plus the keys (file-backed-string-table.ts keeps only the keys, ADR 0310).
 */
const TAB = 0x09;
const NEWLINE = 0x0a;

/** What the lexicon reads from a table: in memory (below) or with its values in the cache file. */
export interface StringLookup {
  readonly size: number;
  has(key: string): boolean;
  /** Whether some key starts with `prefix` (the key `prefix` itself counts). */
  hasKeyStartingWith(prefix: string): boolean;
  get(key: string): string | undefined;
}

export interface SortedStringTable extends StringLookup {
  /** The raw `key \t value \n` lines, for writing the table to a cache file. */
  readonly bytes: Buffer;
}

/**
 * Byte order of `key` against keys[start, end) (UTF-8 order = code point order). In JavaScript, not
 * Buffer#compare: a lookup makes ≈ 20 comparisons of a few bytes, where a call into C++ each time
 * costs more than the comparison (ADR 0310).
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

/** Sorted `key \t value \n` lines, indexed: a binary search over their keys and where each value lies. */
export interface SortedLinesIndex {
  readonly size: number;
  /** The line number of `key`, or -1. */
  find(key: string): number;
  /** Whether some key starts with `prefix`: the first key not below it does, if any does. */
  hasKeyStartingWith(prefix: string): boolean;
  /** Where line `line`'s value starts in the lines. */
  valueStart(line: number): number;
  /** Where it ends (exclusive). */
  valueEnd(line: number): number;
}

/**
 * Indexes `lines`, copying their keys into a buffer of their own: the lines themselves may then stay
 * (an in-memory table) or be dropped (a table whose values are read from the cache file).
 */
export function indexSortedLines(lines: Buffer): SortedLinesIndex {
  let lineCount = 0;
  let keyBytes = 0;
  for (let lineStart = 0; lineStart < lines.length; lineCount++) {
    let end = lines.indexOf(NEWLINE, lineStart);
    if (end < 0) end = lines.length;
    const tab = lines.indexOf(TAB, lineStart);
    keyBytes += (tab < 0 || tab > end ? end : tab) - lineStart;
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
  const valueStart = (index: number) =>
    (lineStarts[index] ?? 0) + (keyStarts[index + 1] ?? 0) - (keyStarts[index] ?? 0) + 1;
  return {
    size: lineCount,
    find(key) {
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
    },
    hasKeyStartingWith(prefix) {
      const wanted = Buffer.from(prefix, "utf8");
      let low = 0;
      let high = lineCount;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareKey(wanted, keys, keyStarts[middle] ?? 0, keyStarts[middle + 1] ?? 0) > 0)
          low = middle + 1;
        else high = middle;
      }
      if (low >= lineCount) return false;
      const start = keyStarts[low] ?? 0;
      if ((keyStarts[low + 1] ?? 0) - start < wanted.length) return false;
      return compareKey(wanted, keys, start, start + wanted.length) === 0;
    },
    valueStart,
    valueEnd: (index) => Math.max(valueStart(index), (lineStarts[index + 1] ?? 0) - 1),
  };
}

/** Wraps bytes laid out as sorted lines (from `buildSortedStringTable` or a cache file). */
export function openSortedStringTable(bytes: Buffer): SortedStringTable {
  const index = indexSortedLines(bytes);
  return {
    size: index.size,
    bytes,
    has: (key) => index.find(key) >= 0,
    hasKeyStartingWith: (prefix) => index.hasKeyStartingWith(prefix),
    get(key) {
      const line = index.find(key);
      return line < 0 ? undefined : bytes.toString("utf8", index.valueStart(line), index.valueEnd(line));
    },
  };
}

/**
 * Builds a table. Keys with tabs, newlines or astral characters and values with newlines are dropped:
 * without surrogate pairs, JS string order (UTF-16 code units) equals the UTF-8 byte order `get` searches.
 */
export function buildSortedStringTable(entries: ReadonlyMap<string, string>): SortedStringTable {
  const keys = [...entries.keys()].filter((key) => !/[\t\n\uD800-\uDFFF]/.test(key)).sort();
  const lines: string[] = [];
  for (const key of keys) {
    const value = entries.get(key) ?? "";
    if (!value.includes("\n")) lines.push(`${key}\t${value}\n`);
  }
  return openSortedStringTable(Buffer.from(lines.join(""), "utf8"));
}
