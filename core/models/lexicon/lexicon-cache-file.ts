/**
 * The lexicon's tables in one file under a runtime data directory (never in the repository: the content is
 * derived from GPL/AGPL dictionaries). Reading it takes tens of milliseconds instead of the ≈ 10 s it takes
 * to parse the dictionaries. Layout: one JSON header line, then the tables' bytes back to back.
 */
import { close, fstat, open, read } from "node:fs";
import { mkdir, readdir, rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import type { LexiconLookups, LexiconTables } from "./build-lexicon-tables.js";
import {
  closeWhenUnused,
  type OpenCacheFile,
  openFileBackedStringTable,
} from "./file-backed-string-table.js";
import { openSortedStringTable, type StringLookup } from "./sorted-string-table.js";

// Raw descriptors, not FileHandles: the translation tables read from theirs synchronously for the
// process's lifetime (a FileHandle warns when the collector closes it).
const openFile = promisify(open);
const closeFile = promisify(close);
const statFd = promisify(fstat);
const readFromFd = promisify(read);

/** Bump when the table layout or the cleaning rules change, so old caches are rebuilt. */
export const LEXICON_CACHE_FORMAT = 5;

const SECTIONS = ["de2en", "en2de", "freq-de", "freq-en", "lemma-de", "lemma-en"] as const;
/** The sections whose values stay in the file: 36 of the cache's 49 MB (the rest is under 1.5 MB). */
const FILE_BACKED_SECTIONS: ReadonlySet<(typeof SECTIONS)[number]> = new Set(["de2en", "en2de"]);

interface CacheHeader {
  readonly format: number;
  readonly fingerprint: string;
  readonly exampleCount: { readonly de: number; readonly en: number };
  readonly sectionLengths: readonly number[];
}

export function lexiconCachePath(cacheDirectory: string, fingerprint: string): string {
  let hash = 2166136261;
  for (let index = 0; index < fingerprint.length; index++) {
    hash = Math.imul(hash ^ fingerprint.charCodeAt(index), 16777619) >>> 0;
  }
  return join(cacheDirectory, `freedict-lexicon-v${LEXICON_CACHE_FORMAT}-${hash.toString(16)}.bin`);
}

function sectionBytes(tables: LexiconTables): Buffer[] {
  return [
    tables.translations.de2en.bytes,
    tables.translations.en2de.bytes,
    tables.exampleFrequency.de.bytes,
    tables.exampleFrequency.en.bytes,
    tables.lemmas.de.bytes,
    tables.lemmas.en.bytes,
  ];
}

export async function writeLexiconCache(
  path: string,
  fingerprint: string,
  tables: LexiconTables,
): Promise<void> {
  const sections = sectionBytes(tables);
  const header: CacheHeader = {
    format: LEXICON_CACHE_FORMAT,
    fingerprint,
    exampleCount: tables.exampleCount,
    sectionLengths: sections.map((section) => section.length),
  };
  await mkdir(dirname(path), { recursive: true });
  // Write then rename: a reader (another worker thread) never sees a half-written file.
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(
    temporary,
    Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, "utf8"), ...sections]),
  );
  await rename(temporary, path);
  await removeStaleCaches(path);
}

/** Caches of older formats or dictionary editions are never read again; 50 MB each is worth reclaiming. */
async function removeStaleCaches(currentPath: string): Promise<void> {
  const directory = dirname(currentPath);
  const names = await readdir(directory).catch(() => []);
  for (const name of names) {
    if (STALE_CACHE_NAME.test(name) && name !== basename(currentPath)) {
      await unlink(join(directory, name)).catch(() => {});
    }
  }
}

const STALE_CACHE_NAME = /^freedict-lexicon-v\d+-[0-9a-f]+\.bin$/;

function isCacheHeader(value: unknown): value is CacheHeader {
  if (typeof value !== "object" || value === null) return false;
  const header = value as Record<string, unknown>;
  const counts = header.exampleCount as Record<string, unknown> | undefined;
  return (
    typeof header.format === "number" &&
    typeof header.fingerprint === "string" &&
    typeof counts?.de === "number" &&
    typeof counts.en === "number" &&
    Array.isArray(header.sectionLengths) &&
    header.sectionLengths.length === SECTIONS.length &&
    header.sectionLengths.every((length) => typeof length === "number")
  );
}

/** Reads `length` bytes at `position` of `fd`, or fewer at the end of the file. */
async function readAt(fd: number, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await readFromFd(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * Returns the cached tables, or undefined when the file is missing, stale or damaged. The translation
 * tables keep only their keys in memory and read values from the open file (file-backed-string-table.ts,
 * ADR 0310); the small tables are read into memory. Everything comes from one open descriptor, so a cache
 * renamed over this one meanwhile cannot mix two files.
 */
export async function readLexiconCache(
  path: string,
  fingerprint: string,
): Promise<LexiconLookups | undefined> {
  let fd: number;
  try {
    fd = await openFile(path, "r");
  } catch {
    return undefined;
  }
  let owned = false;
  try {
    const tables = await readOpenCache(fd, fingerprint);
    owned = tables !== undefined;
    return tables;
  } catch {
    return undefined;
  } finally {
    if (!owned) await closeFile(fd).catch(() => {});
  }
}

async function readOpenCache(fd: number, fingerprint: string): Promise<LexiconLookups | undefined> {
  const { size } = await statFd(fd);
  // The header is one short JSON line; 64 KiB is far more than it needs.
  const head = await readAt(fd, Math.min(size, 65_536), 0);
  const headerEnd = head.indexOf(0x0a);
  if (headerEnd < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(head.toString("utf8", 0, headerEnd));
  } catch {
    return undefined;
  }
  if (
    !isCacheHeader(header) ||
    header.format !== LEXICON_CACHE_FORMAT ||
    header.fingerprint !== fingerprint
  ) {
    return undefined;
  }
  const total = header.sectionLengths.reduce((sum, length) => sum + length, 0);
  if (headerEnd + 1 + total !== size) return undefined;
  const file: OpenCacheFile = { fd };
  const tables: StringLookup[] = [];
  let start = headerEnd + 1;
  for (const [index, length] of header.sectionLengths.entries()) {
    // One section at a time: the translation sections' bytes are dropped once their keys are copied.
    const lines = await readAt(fd, length, start);
    if (lines.length !== length) return undefined;
    const table = FILE_BACKED_SECTIONS.has(SECTIONS[index] as (typeof SECTIONS)[number])
      ? openFileBackedStringTable(file, lines, start)
      : openSortedStringTable(lines);
    if (table === undefined) return undefined;
    tables.push(table);
    start += length;
  }
  const [de2en, en2de, frequencyDe, frequencyEn, lemmaDe, lemmaEn] = tables as [
    StringLookup,
    StringLookup,
    StringLookup,
    StringLookup,
    StringLookup,
    StringLookup,
  ];
  closeWhenUnused(file);
  return {
    translations: { de2en, en2de },
    lemmas: { de: lemmaDe, en: lemmaEn },
    exampleFrequency: { de: frequencyDe, en: frequencyEn },
    exampleCount: header.exampleCount,
  };
}
