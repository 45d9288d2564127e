/**
 * Loads the German↔English lexicon from the FreeDict dictionaries Debian installs
 * (`dict-freedict-deu-eng`, `dict-freedict-eng-deu`). They are GPL/AGPL, so they are read here at run time
 * and never copied into the repository; the parsed tables may be cached under a runtime data directory.
 * Missing dictionaries are not an error: the lexicon is then empty and `warning` says why, once.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  createLexiconTablesBuilder,
  type LexiconLookups,
  type LexiconTables,
} from "./build-lexicon-tables.js";
import { createEmptyLexicon, createLexicon } from "./create-lexicon.js";
import type { Lexicon, LexiconLanguage } from "./lexicon.js";
import { lexiconCachePath, readLexiconCache, writeLexiconCache } from "./lexicon-cache-file.js";
import { waitForCacheBuilder } from "./lexicon-cache-lock.js";
import { readDictdDictionary } from "./read-dictd-dictionary.js";

export const DEFAULT_DICTIONARY_DIRECTORY = "/usr/share/dictd";

const DICTIONARIES = [
  { name: "freedict-deu-eng", source: "de", target: "en" },
  { name: "freedict-eng-deu", source: "en", target: "de" },
] as const satisfies ReadonlyArray<{ name: string; source: LexiconLanguage; target: LexiconLanguage }>;

export interface LoadLexiconOptions {
  /** Holds `freedict-deu-eng.{index,dict.dz}` and `freedict-eng-deu.*`; default `/usr/share/dictd`. */
  readonly dictionaryDirectory?: string;
  /**
   * Runtime data directory for the parsed tables. Without it every process parses the dictionaries
   * (≈ 10 s, ≈ 1 GB peak); with it only the first one does and the others read the file.
   */
  readonly cacheDirectory?: string;
}

export interface LoadedLexicon {
  readonly lexicon: Lexicon;
  /** Where the tables came from; "none" when no dictionary was found. */
  readonly source: "cache" | "dictionaries" | "none";
  /** One line for the log when the lexicon is empty or incomplete, or its cache could not be written. */
  readonly warning?: string;
  readonly loadMs: number;
}

/** Sizes and dates of the dictionary files: changes when Debian updates the packages. */
async function fingerprintDictionaries(directory: string, names: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const name of names) {
    for (const suffix of [".index", ".dict.dz"]) {
      const info = await stat(join(directory, name + suffix));
      parts.push(`${name}${suffix}:${info.size}:${Math.round(info.mtimeMs)}`);
    }
  }
  return parts.join(";");
}

async function isInstalled(directory: string, name: string): Promise<boolean> {
  try {
    await Promise.all([stat(join(directory, `${name}.index`)), stat(join(directory, `${name}.dict.dz`))]);
    return true;
  } catch {
    return false;
  }
}

async function buildTables(
  directory: string,
  installed: ReadonlyArray<(typeof DICTIONARIES)[number]>,
): Promise<LexiconTables> {
  const builder = createLexiconTablesBuilder();
  for (const { name, source, target } of installed) {
    builder.add(await readDictdDictionary(directory, name), source, target);
  }
  return builder.finish();
}

export async function loadLexicon(options: LoadLexiconOptions = {}): Promise<LoadedLexicon> {
  const started = performance.now();
  const directory = options.dictionaryDirectory ?? DEFAULT_DICTIONARY_DIRECTORY;
  const installed: (typeof DICTIONARIES)[number][] = [];
  for (const dictionary of DICTIONARIES)
    if (await isInstalled(directory, dictionary.name)) installed.push(dictionary);
  const elapsed = () => Math.round(performance.now() - started);
  if (installed.length === 0) {
    return {
      lexicon: createEmptyLexicon(),
      source: "none",
      warning: `no FreeDict dictionaries in ${directory} (install dict-freedict-deu-eng and dict-freedict-eng-deu): cross-lingual matching is off`,
      loadMs: elapsed(),
    };
  }
  const missing = DICTIONARIES.filter((dictionary) => !installed.includes(dictionary)).map(
    ({ name }) => name,
  );
  const partialWarning =
    missing.length > 0 ? `missing ${missing.join(", ")} in ${directory}: lexicon is partial` : "";
  const fingerprint = await fingerprintDictionaries(
    directory,
    installed.map(({ name }) => name),
  );
  const withWarning = (warning: string) => (warning.length > 0 ? { warning } : {});
  try {
    if (options.cacheDirectory !== undefined) {
      const path = lexiconCachePath(options.cacheDirectory, fingerprint);
      const cached = await waitForCacheBuilder(path, () => readLexiconCache(path, fingerprint));
      if (cached.tables !== undefined) {
        return {
          lexicon: createLexicon(cached.tables, fingerprint),
          source: "cache",
          ...withWarning(partialWarning),
          loadMs: elapsed(),
        };
      }
      const built = await buildTables(directory, installed);
      let tables: LexiconLookups = built;
      let cacheWarning = "";
      try {
        await writeLexiconCache(path, fingerprint, built);
        // Read back, so the first start keeps the translations on disk as every later one does.
        tables = (await readLexiconCache(path, fingerprint)) ?? built;
      } catch (error) {
        cacheWarning = `could not write the lexicon cache ${path}: ${String(error)}`;
      } finally {
        await cached.release();
      }
      const warning = [partialWarning, cacheWarning].filter((part) => part.length > 0).join("; ");
      return {
        lexicon: createLexicon(tables, fingerprint),
        source: "dictionaries",
        ...withWarning(warning),
        loadMs: elapsed(),
      };
    }
    const tables = await buildTables(directory, installed);
    return {
      lexicon: createLexicon(tables, fingerprint),
      source: "dictionaries",
      ...withWarning(partialWarning),
      loadMs: elapsed(),
    };
  } catch (error) {
    return {
      lexicon: createEmptyLexicon(),
      source: "none",
      warning: `could not read the FreeDict dictionaries in ${directory}: ${String(error)}; cross-lingual matching is off`,
      loadMs: elapsed(),
    };
  }
}
