/**
 * Loads the thesauri Debian installs, once per process (core/models/load-models.ts), the way the FreeDict
 * lexicon is loaded: optional — without them recall runs as before and `warning` says so once — and
 * read from where the packages put them, never copied into the repository (their licences: ADR 0520).
 *
 *   German: `openthesaurus-de-text` (/usr/share/openthesaurus-de/openthesaurus.txt), else `mythes-de`
 *   English: `mythes-en-us` (/usr/share/mythes/th_en_US_v2.{idx,dat}, derived from WordNet)
 *
 * A path ending in .dat or .idx is read as MyThes (the other file beside it), anything else as the
 * OpenThesaurus text export. THESAURUS_DE / THESAURUS_EN choose other files; "none" turns one off.
 */
import { stat } from "node:fs/promises";
import type { LanguageThesaurus } from "./language-thesaurus.js";
import { openMythes } from "./open-mythes.js";
import { readOpenThesaurus } from "./read-openthesaurus.js";
import {
  EMPTY_THESAURUS,
  type Thesaurus,
  type ThesaurusFormat,
  type ThesaurusLanguage,
  type ThesaurusSource,
} from "./thesaurus.js";

export const DEFAULT_THESAURUS_PATHS: Readonly<Record<ThesaurusLanguage, readonly string[]>> = {
  de: ["/usr/share/openthesaurus-de/openthesaurus.txt", "/usr/share/mythes/th_de_DE_v2.dat"],
  en: ["/usr/share/mythes/th_en_US_v2.dat"],
};

const PACKAGES: Readonly<Record<ThesaurusLanguage, string>> = {
  de: "openthesaurus-de-text or mythes-de",
  en: "mythes-en-us",
};

export interface LoadThesaurusOptions {
  /** A file per language, or "none"; unset: the first of DEFAULT_THESAURUS_PATHS that exists. */
  readonly de?: string | undefined;
  readonly en?: string | undefined;
}

export interface LoadedThesaurus {
  readonly thesaurus: Thesaurus;
  /** One line for the log when a language has no thesaurus or one could not be read. */
  readonly warning?: string;
  readonly loadMs: number;
}

interface Candidate {
  readonly format: ThesaurusFormat;
  /** The file read (MyThes: the data file). */
  readonly path: string;
  readonly indexPath?: string;
}

function candidateFor(path: string): Candidate {
  if (path.endsWith(".dat") || path.endsWith(".idx")) {
    const stem = path.slice(0, -4);
    return { format: "mythes", path: `${stem}.dat`, indexPath: `${stem}.idx` };
  }
  return { format: "openthesaurus", path };
}

async function fingerprintOf(candidate: Candidate): Promise<string | undefined> {
  try {
    const files = [candidate.path, ...(candidate.indexPath === undefined ? [] : [candidate.indexPath])];
    const parts: string[] = [];
    for (const file of files) {
      const info = await stat(file);
      if (!info.isFile()) return undefined;
      parts.push(`${file}:${info.size}:${Math.round(info.mtimeMs)}`);
    }
    return parts.join(";");
  } catch {
    return undefined;
  }
}

async function open(candidate: Candidate): Promise<LanguageThesaurus> {
  return candidate.format === "mythes"
    ? openMythes(candidate.indexPath ?? "", candidate.path)
    : readOpenThesaurus(candidate.path);
}

export async function loadThesaurus(options: LoadThesaurusOptions = {}): Promise<LoadedThesaurus> {
  const started = performance.now();
  const byLanguage = new Map<ThesaurusLanguage, LanguageThesaurus>();
  const sources: ThesaurusSource[] = [];
  const fingerprints: string[] = [];
  const warnings: string[] = [];
  for (const language of ["de", "en"] as const) {
    const chosen = options[language];
    if (chosen === "none") continue;
    const paths = chosen === undefined ? DEFAULT_THESAURUS_PATHS[language] : [chosen];
    let found = false;
    for (const path of paths) {
      const candidate = candidateFor(path);
      const fingerprint = await fingerprintOf(candidate);
      if (fingerprint === undefined) continue;
      found = true;
      try {
        const thesaurus = await open(candidate);
        byLanguage.set(language, thesaurus);
        sources.push({
          language,
          format: candidate.format,
          path: candidate.path,
          headwords: thesaurus.headwords,
        });
        fingerprints.push(`${language}=${fingerprint}`);
      } catch (error) {
        warnings.push(`could not read the thesaurus ${candidate.path}: ${String(error)}`);
      }
      break;
    }
    if (!found)
      warnings.push(
        `no ${language === "de" ? "German" : "English"} thesaurus at ${paths.join(" or ")} (install ${PACKAGES[language]}): no ${language} synonyms`,
      );
  }
  const loadMs = Math.round(performance.now() - started);
  const warning = warnings.length > 0 ? { warning: warnings.join("; ") } : {};
  if (byLanguage.size === 0) return { thesaurus: EMPTY_THESAURUS, loadMs, ...warning };
  return {
    thesaurus: {
      sources,
      fingerprint: fingerprints.join(";"),
      meanings: (word, language) => byLanguage.get(language)?.meanings(word) ?? [],
    },
    loadMs,
    ...warning,
  };
}
