/**
 * Reads one installed dictd dictionary (`<name>.index` + `<name>.dict.dz`). The `.dict.dz` is dictzip, a
 * gzip file with a random-access header; plain gunzip reads it whole, which is all we need because the
 * lexicon visits every entry once.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { parseDictdIndex } from "./dictd-index.js";

const gunzipAsync = promisify(gunzip);

/** One stored entry with every index headword that points at it (e.g. "go", "went", "gone"). */
export interface DictdEntryText {
  readonly headwords: readonly string[];
  readonly text: string;
}

export interface DictdDictionary {
  /** Number of distinct entries (several headwords may share one). */
  readonly entryCount: number;
  readonly skippedIndexLines: number;
  /** Decodes entries one at a time, so the whole dictionary never exists as JS strings at once. */
  entries(): Iterable<DictdEntryText>;
}

/** dictd's own metadata entries (`00-database-info`, …) are not words. */
function isMetadataHeadword(headword: string): boolean {
  return headword.length === 0 || headword.startsWith("00-database") || headword.startsWith("00database");
}

export async function readDictdDictionary(directory: string, name: string): Promise<DictdDictionary> {
  const [indexText, compressed] = await Promise.all([
    readFile(join(directory, `${name}.index`), "utf8"),
    readFile(join(directory, `${name}.dict.dz`)),
  ]);
  const data = await gunzipAsync(compressed);
  const { lines, skipped } = parseDictdIndex(indexText);
  const headwordsByOffset = new Map<number, { length: number; headwords: string[] }>();
  let outOfRange = 0;
  for (const line of lines) {
    if (isMetadataHeadword(line.headword)) continue;
    if (line.offset + line.length > data.length) {
      outOfRange++;
      continue;
    }
    const group = headwordsByOffset.get(line.offset);
    if (group === undefined)
      headwordsByOffset.set(line.offset, { length: line.length, headwords: [line.headword] });
    else if (!group.headwords.includes(line.headword)) group.headwords.push(line.headword);
  }
  return {
    entryCount: headwordsByOffset.size,
    skippedIndexLines: skipped + outOfRange,
    *entries() {
      for (const [offset, { length, headwords }] of headwordsByOffset) {
        yield { headwords, text: data.toString("utf8", offset, offset + length) };
      }
    },
  };
}
