/**
 * Small dev sets in languages the nine eval sets lack (ADR 0670): can recall find a memory by words
 * from it? Built from Debian's `fortunes-*` packages (GPL: read where Debian installs them, never copied
 * into this repository); their entries are the memories.
 * - `--lang zh` (fortunes-zh, modern-Chinese file): Chinese writes no spaces between words. Half the
 *   questions are a 4–8 character stretch from inside one entry's clause (never a whole clause:
 *   "phrase"), half two 2–3 character stretches of it between spaces ("two pieces", as keywords are
 *   typed).
 * - `--lang es|ru|it` (fortunes-es, -ru, -it): languages with neither a dictionary nor a stemmer here;
 *   each question is 2–3 words of at least 5 letters from one entry, in another order ("words").
 * Every entry containing the question's pieces (whole words for es/ru/it) is relevant.
 *
 *   apt-get install fortunes-zh fortunes-es fortunes-ru fortunes-it
 *   npx tsx bench/eval/build-known-items.ts --lang zh [--out .tmp/zh_known_items] [--docs 1500] [--queries 300]
 *   npm run eval -- --dataset .tmp/zh_known_items --no-peer
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createRandom } from "../synthetic-corpus.js";

const { values } = parseArgs({
  options: {
    lang: { type: "string", default: "zh" },
    out: { type: "string" },
    docs: { type: "string", default: "1500" },
    queries: { type: "string", default: "300" },
  },
});
const lang = values.lang;
const FORTUNES = "/usr/share/games/fortunes";

/** The fortune files of a language, UTF-8 (Italian ships .u8 copies beside Latin-1 originals). */
async function sourceFiles(): Promise<string[]> {
  if (lang === "zh") return [join(FORTUNES, "chinese")];
  const directory = join(FORTUNES, lang);
  const names = (await readdir(directory, { recursive: true })).map(String).sort();
  const utf8 = names.filter((name) => name.endsWith(".u8"));
  const chosen =
    utf8.length > 0 ? utf8 : names.filter((name) => !name.endsWith(".dat") && !name.includes("."));
  // es ships "*.fortunes"; "off/" holds the offensive ones, left out.
  const files = lang === "es" ? names.filter((n) => n.endsWith(".fortunes") && !n.startsWith("off")) : chosen;
  return files.map((name) => join(directory, name));
}

// The files colour titles and attributions with ANSI escapes.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "gu");
const HAN_CLAUSE = /\p{Script=Han}{6,}/gu;
const LONG_WORD = /\p{L}{5,}/gu;

const texts: string[] = [];
for (const file of await sourceFiles()) texts.push(...(await readFile(file, "utf8")).split(/^%$/mu));
const minimum = lang === "zh" ? /\p{Script=Han}/gu : /\p{L}/gu;
const entries = [
  ...new Set(
    texts
      .map((entry) => entry.replace(ANSI, "").trim())
      .filter((entry) => (entry.match(minimum) ?? []).length >= (lang === "zh" ? 20 : 60)),
  ),
].slice(0, Number(values.docs));
const random = createRandom(7);
const pick = (n: number) => Math.floor(random() * n);

const queries: { id: string; text: string; relevant_ids: string[]; lang: string; category: string }[] = [];
const asked = new Set<string>();
const lowerEntries = entries.map((entry) => entry.toLowerCase());
const wordsOf = entries.map((entry) => new Set(entry.toLowerCase().match(/\p{L}+/gu) ?? []));
const ask = (text: string, category: string, holds: (i: number) => boolean) => {
  if (asked.has(text)) return;
  asked.add(text);
  const relevant = entries.flatMap((_, i) => (holds(i) ? [`${lang}-${i}`] : []));
  queries.push({ id: `${lang}-q${queries.length}`, text, relevant_ids: relevant, lang, category });
};
/** A stretch of `length` characters from inside a random clause (never the whole clause). */
const stretch = (clauses: readonly string[], length: number) => {
  const clause = clauses[pick(clauses.length)];
  if (clause === undefined || clause.length <= length) return undefined;
  const start = pick(clause.length - length + 1);
  return clause.slice(start, start + length);
};
for (
  let attempt = 0;
  queries.length < Number(values.queries) && attempt < 20 * Number(values.queries);
  attempt++
) {
  const entry = entries[pick(entries.length)] ?? "";
  if (lang !== "zh") {
    const words = [...new Set(entry.toLowerCase().match(LONG_WORD) ?? [])];
    if (words.length < 4) continue;
    const chosen = new Set<string>();
    const count = 2 + pick(2);
    while (chosen.size < count) chosen.add(words[pick(words.length)] ?? "");
    const pieces = [...chosen];
    ask(pieces.join(" "), "words", (i) => pieces.every((p) => wordsOf[i]?.has(p)));
    continue;
  }
  const clauses = entry.match(HAN_CLAUSE) ?? [];
  if (attempt % 2 === 0) {
    // "phrase": 4–8 characters from inside one clause.
    const phrase = stretch(clauses, 4 + pick(5));
    if (phrase !== undefined) ask(phrase, "phrase", (i) => lowerEntries[i]?.includes(phrase) ?? false);
  } else {
    // "two pieces": two 2–3 character stretches of the entry, apart, between spaces (keywords).
    const first = stretch(clauses, 2 + pick(2));
    const second = stretch(clauses, 2 + pick(2));
    if (first !== undefined && second !== undefined && first !== second)
      ask(`${first} ${second}`, "two pieces", (i) =>
        [first, second].every((p) => lowerEntries[i]?.includes(p) ?? false),
      );
  }
}

const out = values.out ?? `.tmp/${lang}_known_items`;
const lines = (rows: readonly unknown[]) => `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
await mkdir(out, { recursive: true });
await writeFile(
  join(out, "corpus.jsonl"),
  lines(entries.map((text, i) => ({ id: `${lang}-${i}`, title: "", text }))),
);
await writeFile(join(out, "queries.jsonl"), lines(queries));
await writeFile(
  join(out, "meta.json"),
  `${JSON.stringify(
    {
      source: `Debian fortunes (${FORTUNES}, language ${lang}), GPL, read at build time`,
      task: "words from a memory -> the entries that contain them (text only)",
      n_corpus: entries.length,
      n_queries: queries.length,
    },
    null,
    2,
  )}\n`,
);
console.log(`${entries.length} entries, ${queries.length} questions → ${out}`);
