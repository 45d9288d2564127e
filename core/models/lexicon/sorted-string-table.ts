/**
 * A read-only string → string map stored as one UTF-8 buffer of sorted `key \t value \n` lines plus an
 * array of line starts, searched by binary search. The full lexicon has ≈ 700k keys: as JS strings in a
 * Map it would cost well over 100 MB per worker thread, as one buffer it costs its byte size.
 */
const TAB = 0x09;
const NEWLINE = 0x0a;

/** What the lexicon reads from a table: in memory (below) or with its values in the cache file. */
export interface StringLookup {
  readonly size: number;
  has(key: string): boolean;
  get(key: string): string | undefined;
}

export interface SortedStringTable extends StringLookup {
  /** The raw `key \t value \n` lines, for writing the table to a cache file. */
  readonly bytes: Buffer;
}

/** Byte comparison of `key` with the key of the line starting at `start` (UTF-8 order = code point order). */
function compareKeyAt(bytes: Buffer, start: number, key: Buffer): number {
  for (let index = 0; ; index++) {
    const lineByte = bytes[start + index] ?? NEWLINE;
    const atLineKeyEnd = lineByte === TAB || lineByte === NEWLINE;
    if (index === key.length) return atLineKeyEnd ? 0 : -1;
    if (atLineKeyEnd) return 1;
    const difference = (key[index] ?? 0) - lineByte;
    if (difference !== 0) return difference;
  }
}

/** Wraps bytes laid out as sorted lines (from `buildSortedStringTable` or a cache file). */
export function openSortedStringTable(bytes: Buffer): SortedStringTable {
  let lineCount = 0;
  for (let index = 0; index < bytes.length; index++) if (bytes[index] === NEWLINE) lineCount++;
  const starts = new Int32Array(lineCount);
  let line = 0;
  let start = 0;
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === NEWLINE) {
      starts[line++] = start;
      start = index + 1;
    }
  }
  /** The line start of `key`, or -1. */
  const find = (keyBytes: Buffer): number => {
    let low = 0;
    let high = lineCount - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const lineStart = starts[middle] ?? 0;
      const order = compareKeyAt(bytes, lineStart, keyBytes);
      if (order === 0) return lineStart;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return -1;
  };
  return {
    size: lineCount,
    bytes,
    has: (key) => find(Buffer.from(key, "utf8")) >= 0,
    get(key) {
      const keyBytes = Buffer.from(key, "utf8");
      const lineStart = find(keyBytes);
      if (lineStart < 0) return undefined;
      const valueStart = lineStart + keyBytes.length + 1;
      const valueEnd = bytes.indexOf(NEWLINE, valueStart);
      return bytes.toString("utf8", valueStart, valueEnd < 0 ? bytes.length : valueEnd);
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
