/**
 * A MyThes thesaurus (Debian `mythes-de`, `mythes-en-us`: /usr/share/mythes/th_<locale>_v2.{idx,dat}),
 * read the way MyThes itself reads it: the index stays in memory, an entry is read from the data file
 * with one positioned read when it is looked up — the English data file is 18 MB, the index 3 MB.
 *
 *   idx: "<encoding>\n<count>\n" then "<headword>|<byte offset in dat>\n" per headword
 *   dat: "<encoding>\n" then per headword "<headword>|<n>\n" and n lines "<part of speech>|<term>|<term>…"
 *
 * Each of the n lines is one meaning (WordNet-derived files: most frequent sense first). Only UTF-8 and
 * ISO8859-1 files are read; others are refused.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { cleanThesaurusTerm, plainThesaurusTerm } from "./clean-thesaurus-term.js";
import type { LanguageThesaurus } from "./language-thesaurus.js";

/** Closes a data file's descriptor once its thesaurus is collected (tests open many). */
const descriptors = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

const ENCODINGS: Readonly<Record<string, BufferEncoding>> = {
  "utf-8": "utf8",
  utf8: "utf8",
  "iso8859-1": "latin1",
  "iso-8859-1": "latin1",
};

function encodingOf(firstLine: string, path: string): BufferEncoding {
  const encoding = ENCODINGS[firstLine.trim().toLowerCase()];
  if (encoding === undefined) throw new Error(`${path}: unsupported MyThes encoding "${firstLine.trim()}"`);
  return encoding;
}

/** Parses the index file: headword (lower-cased) → byte offset of its entry in the data file. */
export function parseMythesIndex(content: Buffer, path = "index"): Map<string, number> {
  const newline = content.indexOf(10);
  const encoding = encodingOf(content.toString("latin1", 0, newline < 0 ? content.length : newline), path);
  const offsets = new Map<string, number>();
  const lines = content.toString(encoding).split("\n");
  // lines[0] is the encoding, lines[1] the headword count.
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const bar = line.lastIndexOf("|");
    if (bar <= 0) continue;
    const offset = Number(line.slice(bar + 1));
    const word = line.slice(0, bar).toLowerCase();
    if (Number.isInteger(offset) && offset >= 0 && !offsets.has(word)) offsets.set(word, offset);
  }
  return offsets;
}

/**
 * Parses one entry ("word|n" and its n meaning lines) from text starting at the entry; undefined when
 * the text holds fewer than n + 1 whole lines (`atEnd`: the text is the rest of the file, so its last
 * line counts even without a newline).
 */
export function parseMythesEntry(text: string, word: string, atEnd: boolean): string[][] | undefined {
  const lines = text.split("\n");
  // The piece after the last newline is cut off unless the file ends there.
  const whole = atEnd ? lines.length : lines.length - 1;
  const head = lines[0] ?? "";
  const bar = head.lastIndexOf("|");
  const count = Number(head.slice(bar + 1));
  if (bar <= 0 || !Number.isInteger(count) || count < 0 || whole < count + 1) return undefined;
  const meanings: string[][] = [];
  for (let i = 1; i <= count; i++) {
    // The first field is the part of speech ("(noun)", "-").
    const raw = (lines[i] ?? "").split("|").slice(1);
    const terms = raw.map(cleanThesaurusTerm);
    // mythes-de lists a synset under every word in it, also where the word is only the synset's
    // hypernym ("Bungalow|… Haus (Oberbegriff)" under "haus") or an elliptic entry ("Haus..."): such a
    // line is no sense of the word. (WordNet-derived lines never repeat the headword.)
    const named = raw.filter(
      (term) => plainThesaurusTerm(term) === word || term.toLowerCase().startsWith(`${word}...`),
    );
    if (named.length > 0 && !terms.includes(word)) continue;
    // A sense without synonyms is kept (empty): it still counts when a caller asks how ambiguous a word is.
    meanings.push([...new Set(terms.filter((t) => t !== undefined && t !== word))] as string[]);
  }
  return meanings;
}

export async function openMythes(indexPath: string, dataPath: string): Promise<LanguageThesaurus> {
  const offsets = parseMythesIndex(await readFile(indexPath), indexPath);
  const fd = openSync(dataPath, "r");
  const firstLine = Buffer.alloc(32);
  const read = readSync(fd, firstLine, 0, firstLine.length, 0);
  const head = firstLine.toString("latin1", 0, read);
  const encoding = encodingOf(head.slice(0, Math.max(0, head.indexOf("\n"))), dataPath);
  const file = { fd };
  descriptors.register(file, fd);
  let scratch = Buffer.allocUnsafe(4096);
  /** Reads from `offset` until the entry's n meaning lines are complete (or the file ends). */
  const readEntry = (offset: number, word: string): string[][] => {
    for (let size = scratch.length; ; size *= 2) {
      if (size > scratch.length) scratch = Buffer.allocUnsafe(size);
      const got = readSync(file.fd, scratch, 0, size, offset);
      const entry = parseMythesEntry(scratch.toString(encoding, 0, got), word, got < size);
      if (entry !== undefined) return entry;
      if (got < size || size >= 1 << 22) return [];
    }
  };
  return {
    headwords: offsets.size,
    meanings(word) {
      const offset = offsets.get(word);
      return offset === undefined ? [] : readEntry(offset, word);
    },
  };
}
