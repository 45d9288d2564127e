/**
 * The lexicon's tables in one file under a runtime data directory (never in the repository: the content is
 * derived from GPL/AGPL dictionaries). Reading it takes tens of milliseconds instead of the ≈ 10 s it takes
 * to parse the dictionaries. Layout: one JSON header line, then the tables' bytes back to back.
 */
import { mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { LexiconTables } from "./build-lexicon-tables.js";
import { openSortedStringTable } from "./sorted-string-table.js";

/** Bump when the table layout or the cleaning rules change, so old caches are rebuilt. */
export const LEXICON_CACHE_FORMAT = 5;

const SECTIONS = ["de2en", "en2de", "freq-de", "freq-en", "lemma-de", "lemma-en"] as const;

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

/** Returns the cached tables, or undefined when the file is missing, stale or damaged. */
export async function readLexiconCache(
  path: string,
  fingerprint: string,
): Promise<LexiconTables | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return undefined;
  }
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8", 0, headerEnd));
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
  if (headerEnd + 1 + total !== bytes.length) return undefined;
  const sections: Buffer[] = [];
  let start = headerEnd + 1;
  for (const length of header.sectionLengths) {
    sections.push(bytes.subarray(start, start + length));
    start += length;
  }
  const [de2en, en2de, frequencyDe, frequencyEn, lemmaDe, lemmaEn] = sections.map(openSortedStringTable);
  if (
    de2en === undefined ||
    en2de === undefined ||
    frequencyDe === undefined ||
    frequencyEn === undefined ||
    lemmaDe === undefined ||
    lemmaEn === undefined
  ) {
    return undefined;
  }
  return {
    translations: { de2en, en2de },
    lemmas: { de: lemmaDe, en: lemmaEn },
    exampleFrequency: { de: frequencyDe, en: frequencyEn },
    exampleCount: header.exampleCount,
  };
}
