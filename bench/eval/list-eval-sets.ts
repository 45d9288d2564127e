import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** The evaluation sets under `dir`: each subdirectory holding a queries.jsonl, in name order. */
export async function listEvalSets(dir: string): Promise<string[]> {
  const sets: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory() && (await stat(join(path, "queries.jsonl")).catch(() => undefined)))
      sets.push(path);
  }
  return sets;
}
