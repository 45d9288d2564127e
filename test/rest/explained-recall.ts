import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecutionContext } from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { type FixtureEntry, writeDictdFixture } from "../models/dictd-fixture.js";
import { recallHits, storeEntries } from "./rest-client.js";

/**
 * For tests of query expansion end to end (synonyms, paraphrases): a service on the real models with
 * the environment given, one workspace holding a few notes, and recall's explanation of what BM25
 * matched.
 */
export interface ExplainedHit {
  readonly memoryId: string;
  readonly source?: string;
  readonly explanation?: { readonly matchedTerms?: string[] };
}

export interface NotesWorkspace {
  readonly service: TestService;
  readonly tenant: TestTenant;
  /** The stored notes' memory ids by name. */
  readonly ids: Readonly<Record<string, string>>;
  /** The top 10 for `query` without graph hops, explained. */
  recall(query: string): Promise<ExplainedHit[]>;
}

export async function startWithNotes(
  env: Record<string, string>,
  notes: Readonly<Record<string, string>>,
): Promise<NotesWorkspace> {
  const service = await startTestService({ worker: false, env });
  const tenant = await service.createTenant({ plan: "api" });
  const ids = await storeEntries(service.httpUrl, tenant.token, notes, "Notiz");
  return {
    service,
    tenant,
    ids,
    recall: (query) =>
      recallHits<ExplainedHit>(service.httpUrl, tenant.token, { query, k: 10, hops: 0, explain: true }),
  };
}

/** A NotesWorkspace on dictionaries of its own; `stop` ends the service and deletes them. */
export interface DictionaryNotesWorkspace extends NotesWorkspace {
  stop(): Promise<void>;
}

/**
 * startWithNotes on German→English and English→German dictionaries the test writes (Debian's FreeDict
 * layout, read through LEXICON_DIR) and no thesaurus: what the expansion finds comes from them alone.
 */
export async function startWithDictionaries(
  dictionaries: {
    readonly germanEnglish: readonly FixtureEntry[];
    readonly englishGerman: readonly FixtureEntry[];
  },
  notes: Readonly<Record<string, string>>,
): Promise<DictionaryNotesWorkspace> {
  const directory = await mkdtemp(join(tmpdir(), "recall-dictionaries-"));
  const remove = () => rm(directory, { recursive: true, force: true });
  try {
    await writeDictdFixture(directory, "freedict-deu-eng", dictionaries.germanEnglish);
    await writeDictdFixture(directory, "freedict-eng-deu", dictionaries.englishGerman);
    const workspace = await startWithNotes(
      {
        LEXICON_DIR: directory,
        LEXICON_CACHE_DIR: join(directory, "cache"),
        THESAURUS_DE: "none",
        THESAURUS_EN: "none",
      },
      notes,
    );
    return {
      ...workspace,
      stop: async () => {
        await workspace.service.stop();
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

export const matchedTerms = (hit: ExplainedHit | undefined): readonly string[] =>
  hit?.explanation?.matchedTerms ?? [];

/** The first hit is `memoryId`, and BM25 matched it through a term starting with `termPrefix`. */
export function assertFirstMatchedThrough(
  t: ExecutionContext,
  hits: readonly ExplainedHit[],
  memoryId: string | undefined,
  termPrefix: string,
): void {
  t.is(hits[0]?.memoryId, memoryId);
  const terms = matchedTerms(hits[0]);
  t.true(
    terms.some((term) => term.startsWith(termPrefix)),
    `matched terms: ${terms.join(", ")}`,
  );
}
