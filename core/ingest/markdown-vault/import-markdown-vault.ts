import type { QuotaCaller } from "../../memories/index.js";
import {
  checkUploadSize,
  deleteEdgePair,
  findRelationType,
  lockTenantGraph,
  type WriteNewMemoryDeps,
  writeEdgePair,
  writeNewMemory,
} from "../../memories/index.js";
import { type ParsedNote, parseNote } from "./parse-note.js";
import { resolveLinks } from "./resolve-links.js";

/** A file of the vault as read from disk. */
export interface VaultFile {
  /** Path inside the vault, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

export type NoteStatus = "created" | "updated" | "unchanged" | "failed";

export interface NoteOutcome {
  readonly path: string;
  readonly title: string;
  readonly status: NoteStatus;
  readonly memoryId?: string;
  /** Why a note failed (front matter, size, the memory limit, …). */
  readonly error?: string;
}

export interface VaultImport {
  readonly notes: readonly NoteOutcome[];
  /** REFERENCES edges the vault's links stand for now (each written once; repeats are found). */
  readonly links: number;
  /** `[[targets]]` naming no note of the vault. */
  readonly unresolved: readonly { readonly path: string; readonly target: string }[];
}

const REFERENCES = findRelationType("REFERENCES");

/**
 * A Markdown vault into a workspace (docs/ingest.md "Markdown vault"): each note one document
 * through the one write path (upsert by title, quota, memory.created), its front matter's tags as
 * tags and other keys as metadata, its folder as source; each `[[wikilink]]` one REFERENCES edge
 * between the two notes' memories. A note whose file is byte-identical to the one imported last is
 * `unchanged` and not written. Links removed from a changed note lose their edge.
 */
export async function importMarkdownVault(
  deps: WriteNewMemoryDeps,
  caller: QuotaCaller,
  files: readonly VaultFile[],
  onNote: (done: number, total: number, note: NoteOutcome) => void = () => {},
): Promise<VaultImport> {
  const parsed: (ParsedNote | NoteOutcome)[] = files.map((file) => {
    try {
      const note = parseNote(file.path, file.text);
      checkUploadSize(note.body);
      return note;
    } catch (error) {
      return { path: file.path, title: file.path, status: "failed", error: (error as Error).message };
    }
  });
  const notes = uniqueTitles(parsed.filter((p): p is ParsedNote => "sha256" in p));
  const outcomes = new Map<string, NoteOutcome>();
  let done = 0;
  for (const item of parsed) {
    const outcome = "sha256" in item ? await importNote(deps, caller, notes.get(item.path) ?? item) : item;
    outcomes.set(item.path, outcome);
    onNote(++done, parsed.length, outcome);
  }
  const { edges, unresolved } = resolveLinks([...notes.values()]);
  const links = await writeLinks(deps, caller.tenantId, edges, outcomes);
  return { notes: [...outcomes.values()], links, unresolved };
}

/**
 * Titles are the upsert key: two notes of one name in different folders would replace each other, so
 * those keep their path (without `.md`) as title.
 */
function uniqueTitles(notes: readonly ParsedNote[]): Map<string, ParsedNote> {
  const count = new Map<string, number>();
  for (const n of notes) count.set(n.title, (count.get(n.title) ?? 0) + 1);
  return new Map(
    notes.map((n) => [
      n.path,
      (count.get(n.title) ?? 0) > 1 ? { ...n, title: n.path.replace(/\.md$/i, "") } : n,
    ]),
  );
}

async function importNote(
  deps: WriteNewMemoryDeps,
  caller: QuotaCaller,
  note: ParsedNote,
): Promise<NoteOutcome> {
  const { tenantId } = caller;
  const [current] = await deps.db.withTenant(
    tenantId,
    (tx) =>
      tx<{ id: string; sha256: string | null }[]>`
      select id, metadata->'vault'->>'sha256' as sha256 from memories
      where tenant_id = ${tenantId} and kind = 'document' and title = ${note.title}
        and valid_to is null and status <> 'failed'
      order by recorded_at desc limit 1`,
  );
  if (current && current.sha256 === note.sha256) {
    return { path: note.path, title: note.title, status: "unchanged", memoryId: current.id };
  }
  if (!/\S/u.test(note.body)) {
    return {
      path: note.path,
      title: note.title,
      status: "failed",
      error: "the note has no text besides its front matter",
    };
  }
  const folder = note.path.includes("/") ? note.path.slice(0, note.path.lastIndexOf("/")) : "";
  try {
    const outcome = await writeNewMemory(deps, {
      caller,
      kind: "document",
      memoryType: "semantic",
      title: note.title,
      content: note.body,
      source: folder === "" ? "/" : folder,
      tags: note.tags,
      metadata: { ...note.frontMatter, vault: { path: note.path, sha256: note.sha256 } },
      upsertByTitle: true,
      // The body may be the same while the front matter changed: the file's hash decided above.
      dedupe: false,
      mode: "auto",
    });
    return {
      path: note.path,
      title: note.title,
      status: current ? "updated" : "created",
      memoryId: outcome.memoryId,
    };
  } catch (error) {
    return { path: note.path, title: note.title, status: "failed", error: (error as Error).message };
  }
}

/**
 * The vault's links as edges between the notes' current memories, under the graph lock as link takes
 * it. A written note (created or updated) keeps only the REFERENCES edges its text still has: an
 * update carries its predecessor's edges over, including links the user deleted.
 */
async function writeLinks(
  deps: WriteNewMemoryDeps,
  tenantId: string,
  edges: readonly { readonly from: string; readonly to: string }[],
  outcomes: ReadonlyMap<string, NoteOutcome>,
): Promise<number> {
  const type = REFERENCES;
  if (!type) throw new Error("the REFERENCES relation type is not registered");
  const memoryOf = (path: string) => {
    const outcome = outcomes.get(path);
    return outcome?.status === "failed" ? undefined : outcome?.memoryId;
  };
  const wanted = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const fromId = memoryOf(from);
    const toId = memoryOf(to);
    if (fromId === undefined || toId === undefined || fromId === toId) continue;
    wanted.set(fromId, (wanted.get(fromId) ?? new Set()).add(toId));
  }
  const written = [...outcomes.values()].filter((o) => o.status === "created" || o.status === "updated");
  return deps.db.withTenant(tenantId, async (tx) => {
    await lockTenantGraph(tx, tenantId, "shared");
    for (const note of written) {
      if (note.memoryId === undefined) continue;
      const keep = wanted.get(note.memoryId) ?? new Set<string>();
      const existing = await tx<{ to_id: string }[]>`
        select to_id from edges
        where tenant_id = ${tenantId} and from_id = ${note.memoryId} and rel_type = ${type.name} and valid_to is null`;
      for (const { to_id } of existing) {
        if (!keep.has(to_id))
          await deleteEdgePair(tx, { tenantId, fromId: note.memoryId, toId: to_id, type });
      }
    }
    let count = 0;
    for (const [fromId, targets] of wanted) {
      for (const toId of targets) {
        await writeEdgePair(tx, { tenantId, fromId, toId, type });
        count++;
      }
    }
    return count;
  });
}
