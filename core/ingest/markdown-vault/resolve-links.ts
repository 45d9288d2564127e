import type { ParsedNote } from "./parse-note.js";

/**
 * The notes' wikilinks as (from path, to path) pairs, as Obsidian resolves a link: by the note's
 * title, its file name, its path inside the vault (with or without `.md`), or one of its aliases,
 * ignoring case. A name two notes share goes to the one with the shorter path. Links to the note
 * itself and repeats are dropped; names without a note are returned as unresolved.
 */
export function resolveLinks(notes: readonly ParsedNote[]): {
  edges: { from: string; to: string }[];
  unresolved: { path: string; target: string }[];
} {
  const byName = new Map<string, string>();
  const add = (name: string, path: string) => {
    const key = name.trim().toLowerCase();
    const known = byName.get(key);
    if (key !== "" && (known === undefined || path.length < known.length)) byName.set(key, path);
  };
  for (const note of notes) {
    const withoutExt = note.path.replace(/\.md$/i, "");
    add(note.path, note.path);
    add(withoutExt, note.path);
    add(withoutExt.split("/").at(-1) ?? withoutExt, note.path);
    add(note.title, note.path);
    for (const alias of note.aliases) add(alias, note.path);
  }
  const edges: { from: string; to: string }[] = [];
  const unresolved: { path: string; target: string }[] = [];
  const seen = new Set<string>();
  for (const note of notes) {
    for (const link of note.links) {
      const to =
        byName.get(link.target.toLowerCase()) ?? byName.get(link.target.replace(/\.md$/i, "").toLowerCase());
      if (to === undefined) {
        unresolved.push({ path: note.path, target: link.target });
        continue;
      }
      const key = `${note.path}\u0000${to}`;
      if (to === note.path || seen.has(key)) continue;
      seen.add(key);
      edges.push({ from: note.path, to });
    }
  }
  return { edges, unresolved };
}
