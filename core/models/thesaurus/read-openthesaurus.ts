/**
 * OpenThesaurus in its plain-text export (Debian `openthesaurus-de-text`,
 * /usr/share/openthesaurus-de/openthesaurus.txt): one synset a line, terms separated by ";", comment
 * lines starting with "#". The whole file (2.3 MB, 34k synsets) is held in memory; a word's meanings
 * are the synsets it is a member of, in file order (the export has no sense frequencies).
 */
import { readFile } from "node:fs/promises";
import { cleanThesaurusTerm } from "./clean-thesaurus-term.js";
import type { LanguageThesaurus } from "./language-thesaurus.js";

export function parseOpenThesaurus(text: string): LanguageThesaurus {
  const synsets: string[][] = [];
  const memberOf = new Map<string, number[]>();
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.startsWith("#")) continue;
    const terms = [
      ...new Set(
        line
          .split(";")
          .map(cleanThesaurusTerm)
          .filter((t) => t !== undefined),
      ),
    ];
    if (terms.length < 2) continue;
    const id = synsets.length;
    synsets.push(terms);
    for (const term of terms) {
      const ids = memberOf.get(term);
      if (ids === undefined) memberOf.set(term, [id]);
      else ids.push(id);
    }
  }
  return {
    headwords: memberOf.size,
    meanings(word) {
      const ids = memberOf.get(word);
      if (ids === undefined) return [];
      return ids.map((id) => (synsets[id] ?? []).filter((term) => term !== word));
    },
  };
}

export async function readOpenThesaurus(path: string): Promise<LanguageThesaurus> {
  return parseOpenThesaurus(await readFile(path, "utf8"));
}
