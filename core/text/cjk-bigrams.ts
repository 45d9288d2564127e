/**
 * Chinese, Japanese and Korean write words without spaces between them (Korean between phrases with
 * their particles attached): the `german` analyzer and the built-in models' word tokenizer took a whole
 * clause ("我们下周二讨论发布计划") for one word, so a question matched nothing but the identical clause.
 * Overlapping character bigrams stand in for words (as Lucene's CJKAnalyzer does): "发布计划" → 发布,
 * 布计, 计划 — no dictionary, and any shared two-character word matches (ADR 0670).
 */

/** Letters of the CJK scripts (Script_Extensions: "ー" and "々" belong; "。" is not a letter). */
const CJK_LETTER = /(?=\p{L})[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]/u;
const CJK_RUN = /(?:(?=\p{L})[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}])+/gu;

const CJK_LETTERS = /(?=\p{L})[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]/gu;

/** How many CJK letters the text holds, and how many UTF-16 units they take. */
export function countCjkLetters(text: string): { readonly letters: number; readonly units: number } {
  let letters = 0;
  let units = 0;
  for (const [letter] of text.matchAll(CJK_LETTERS)) {
    letters++;
    units += letter.length;
  }
  return { letters, units };
}

/**
 * Code units every CJK letter is in (or starts with, for the supplementary planes' surrogate pairs),
 * as a plain character class: texts in other scripts are passed over at a fraction of what the
 * script-property test costs (tokenisation runs on every passage of every recall).
 */
const MAYBE_CJK =
  /[\u1100-\u11ff\u3005-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff61-\uffdc\ud81b\ud82b\ud82c\ud840-\ud88f]/;

/** Whether the text holds any CJK letter (the fast path: other texts pass through untouched). */
export function hasCjk(text: string): boolean {
  return MAYBE_CJK.test(text) && CJK_LETTER.test(text);
}

/** A run of CJK letters as its overlapping bigrams; a single letter stays itself. */
export function cjkBigrams(run: string): string[] {
  const letters = [...run];
  if (letters.length < 2) return letters;
  const bigrams: string[] = [];
  for (let i = 0; i + 1 < letters.length; i++) bigrams.push(`${letters[i]}${letters[i + 1]}`);
  return bigrams;
}

/**
 * The text with each CJK run replaced by its bigrams between spaces, for the `german` analyzer (the
 * chunks' tsvectors and the query's lexemes alike); other text unchanged.
 */
export function spaceCjkBigrams(text: string): string {
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${cjkBigrams(run).join(" ")} `);
}

/** One word of a tokenizer as words: its CJK runs as bigrams, the pieces between them as they are. */
export function splitCjkWord(word: string): string[] {
  if (!hasCjk(word)) return [word];
  return spaceCjkBigrams(word)
    .split(" ")
    .filter((piece) => piece.length > 0);
}

/** A word of a text and where it stands (UTF-16 offsets, end exclusive), as written. */
export interface WordSpan {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The words of a text with their offsets, as the tokenizer and the index see them: runs of letters,
 * marks and digits, each CJK run as its overlapping bigrams (for snippets and explanations, which
 * point at the words a query matched).
 */
export function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  const cjk = hasCjk(text);
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    if (!cjk || !hasCjk(word)) {
      spans.push({ word, start: m.index, end: m.index + word.length });
      continue;
    }
    let at = 0;
    const piece = (from: number, to: number) =>
      spans.push({ word: word.slice(from, to), start: m.index + from, end: m.index + to });
    for (const run of word.matchAll(CJK_RUN)) {
      if (run.index > at) piece(at, run.index);
      const letters = [...run[0]];
      let offset = run.index;
      for (let i = 0; i < letters.length; i++) {
        const length = letters[i]?.length ?? 1;
        const next = letters[i + 1];
        if (next !== undefined) piece(offset, offset + length + next.length);
        else if (letters.length === 1) piece(offset, offset + length);
        offset += length;
      }
      at = run.index + run[0].length;
    }
    if (at < word.length) piece(at, word.length);
  }
  return spans;
}
