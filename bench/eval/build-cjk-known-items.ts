/**
 * A small Chinese dev set (ADR 0670): can recall find a memory by a phrase from inside one of its
 * sentences? Chinese writes no spaces between words, so such a phrase shares words, not whole clauses,
 * with the memory. Built from Debian's `fortunes-zh` (GPL-3.0+: read where Debian installs it, never
 * copied into this repository): its modern-Chinese file's entries are the memories. Half the questions
 * are a 4–8 character stretch of one entry's clause (never a whole clause: "phrase"), half two 2–3
 * character stretches of it between spaces ("two pieces", as keywords are typed); every entry
 * containing the stretches is relevant.
 *
 *   apt-get install fortunes-zh
 *   npx tsx bench/eval/build-cjk-known-items.ts [--out .tmp/zh_known_items] [--docs 1500] [--queries 300]
 *   npm run eval -- --dataset .tmp/zh_known_items --no-peer
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createRandom } from "../synthetic-corpus.js";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: ".tmp/zh_known_items" },
    source: { type: "string", default: "/usr/share/games/fortunes/chinese" },
    docs: { type: "string", default: "1500" },
    queries: { type: "string", default: "300" },
  },
});

// The files colour titles and attributions with ANSI escapes.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "gu");
const HAN_CLAUSE = /\p{Script=Han}{6,}/gu;

const entries = (await readFile(values.source, "utf8"))
  .split(/^%$/mu)
  .map((entry) => entry.replace(ANSI, "").trim())
  .filter((entry) => (entry.match(/\p{Script=Han}/gu) ?? []).length >= 20)
  .slice(0, Number(values.docs));
const random = createRandom(7);
const pick = (n: number) => Math.floor(random() * n);

const queries: { id: string; text: string; relevant_ids: string[]; lang: string; category: string }[] = [];
const asked = new Set<string>();
/** A stretch of `length` characters from inside a random clause (never the whole clause). */
const stretch = (clauses: readonly string[], length: number) => {
  const clause = clauses[pick(clauses.length)];
  if (clause === undefined || clause.length <= length) return undefined;
  const start = pick(clause.length - length + 1);
  return clause.slice(start, start + length);
};
const ask = (text: string, pieces: readonly string[], category: string) => {
  if (asked.has(text)) return;
  asked.add(text);
  const relevant = entries.flatMap((entry, i) => (pieces.every((p) => entry.includes(p)) ? [`zh-${i}`] : []));
  queries.push({ id: `zh-q${queries.length}`, text, relevant_ids: relevant, lang: "zh", category });
};
for (
  let attempt = 0;
  queries.length < Number(values.queries) && attempt < 20 * Number(values.queries);
  attempt++
) {
  const clauses = entries[pick(entries.length)]?.match(HAN_CLAUSE) ?? [];
  if (attempt % 2 === 0) {
    // "phrase": 4–8 characters from inside one clause.
    const phrase = stretch(clauses, 4 + pick(5));
    if (phrase !== undefined) ask(phrase, [phrase], "phrase");
  } else {
    // "two pieces": two 2–3 character stretches of the entry, apart, between spaces (keywords).
    const first = stretch(clauses, 2 + pick(2));
    const second = stretch(clauses, 2 + pick(2));
    if (first !== undefined && second !== undefined && first !== second)
      ask(`${first} ${second}`, [first, second], "two pieces");
  }
}

const lines = (rows: readonly unknown[]) => `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
await mkdir(values.out, { recursive: true });
await writeFile(
  join(values.out, "corpus.jsonl"),
  lines(entries.map((text, i) => ({ id: `zh-${i}`, title: "", text }))),
);
await writeFile(join(values.out, "queries.jsonl"), lines(queries));
await writeFile(
  join(values.out, "meta.json"),
  `${JSON.stringify(
    {
      source: `Debian fortunes-zh (${values.source}), GPL-3.0+, read at build time`,
      task: "a phrase from inside a sentence -> the Chinese entries that contain it (text only)",
      n_corpus: entries.length,
      n_queries: queries.length,
    },
    null,
    2,
  )}\n`,
);
console.log(`${entries.length} entries, ${queries.length} questions → ${values.out}`);
