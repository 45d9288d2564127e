/**
 * Scripts written without spaces between words (ADR 0670). The `german` analyzer and the built-in
 * models' word tokenizer split at spaces and punctuation, so a whole clause ("我们下周二讨论发布计划",
 * "ผมไปโรงเรียนทุกวัน") was one "word" and a question matched nothing but an identical clause.
 * - Chinese, Japanese and Korean (Korean spaces phrases, with their particles attached): overlapping
 *   character bigrams stand in for words, as Lucene's CJKAnalyzer does — "发布计划" → 发布, 布计, 计划:
 *   no dictionary, and any two-character word a question shares with a memory matches.
 * - Thai, Lao, Khmer and Burmese (letters carry combining vowel and tone marks, so letter pairs would
 *   cut syllables): the word breaks of the runtime's ICU dictionaries (`Intl.Segmenter`, shipped
 *   with Node.js) — "โรงเรียน" stays one word.
 */

/** Letters of the CJK scripts (Script_Extensions: "ー" and "々" belong; "。" is not a letter). */
const CJK = String.raw`(?=\p{L})[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]`;
/**
 * Letters and marks of the scripts ICU segments by dictionary — by Script, not Script_Extensions, which
 * also lists "ʼ" and combining tildes that Latin text uses.
 */
const SEGMENTED = String.raw`(?=[\p{L}\p{M}])[\p{sc=Thai}\p{sc=Laoo}\p{sc=Khmr}\p{sc=Mymr}]`;
const CJK_LETTER = new RegExp(CJK, "u");
const CJK_LETTERS = new RegExp(CJK, "gu");
/** A run of one kind: group 1 CJK, group 2 a dictionary-segmented script. */
const UNSPACED_RUN = new RegExp(`((?:${CJK})+)|((?:${SEGMENTED})+)`, "gu");
const UNSPACED_LETTER = new RegExp(`${CJK}|${SEGMENTED}`, "u");

/**
 * Code units every such letter is in (or starts with, for the supplementary planes' surrogate pairs),
 * as a plain character class: texts in other scripts are passed over at a fraction of what the
 * script-property test costs (tokenisation runs on every passage of every recall). A test checks it
 * lets every letter of these scripts through.
 */
const MAYBE_UNSPACED =
  /[\u0e00-\u0eff\u1000-\u11ff\u1780-\u17ff\u19e0-\u19ff\u3005-\u9fff\ua960-\ua97f\ua9e0-\ua9ff\uaa60-\uaa7f\uac00-\ud7ff\uf900-\ufaff\uff61-\uffdc\ud81b\ud82b\ud82c\ud840-\ud88f]/;

const icuWords = new Intl.Segmenter(undefined, { granularity: "word" });

/** Whether the text holds any letter of these scripts (else it passes through untouched). */
export function hasUnspacedScript(text: string): boolean {
  return MAYBE_UNSPACED.test(text) && UNSPACED_LETTER.test(text);
}

/** How many CJK letters the text holds, and how many UTF-16 units they take. */
export function countCjkLetters(text: string): { readonly letters: number; readonly units: number } {
  if (!MAYBE_UNSPACED.test(text) || !CJK_LETTER.test(text)) return { letters: 0, units: 0 };
  let letters = 0;
  let units = 0;
  for (const [letter] of text.matchAll(CJK_LETTERS)) {
    letters++;
    units += letter.length;
  }
  return { letters, units };
}

/** A word of a text and where it stands (UTF-16 offsets, end exclusive), as written. */
export interface WordSpan {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A CJK run's overlapping bigrams (a single letter stays itself), offsets from `at`. */
function bigramSpans(run: string, at: number, spans: WordSpan[]): void {
  const letters = [...run];
  let offset = at;
  for (let i = 0; i < letters.length; i++) {
    const letter = letters[i] ?? "";
    const next = letters[i + 1];
    if (next !== undefined)
      spans.push({ word: letter + next, start: offset, end: offset + letter.length + next.length });
    else if (letters.length === 1) spans.push({ word: letter, start: offset, end: offset + letter.length });
    offset += letter.length;
  }
}

/** A Thai, Lao, Khmer or Burmese run's dictionary words, offsets from `at`. */
function segmentedSpans(run: string, at: number, spans: WordSpan[]): void {
  for (const { segment, index, isWordLike } of icuWords.segment(run))
    if (isWordLike) spans.push({ word: segment, start: at + index, end: at + index + segment.length });
}

/** One word (a run of letters, marks and digits) as the words it stands for, offsets from `at`. */
function wordSpansOf(word: string, at: number, spans: WordSpan[]): void {
  if (!hasUnspacedScript(word)) {
    spans.push({ word, start: at, end: at + word.length });
    return;
  }
  let from = 0;
  for (const run of word.matchAll(UNSPACED_RUN)) {
    if (run.index > from)
      spans.push({ word: word.slice(from, run.index), start: at + from, end: at + run.index });
    if (run[1] !== undefined) bigramSpans(run[0], at + run.index, spans);
    else segmentedSpans(run[0], at + run.index, spans);
    from = run.index + run[0].length;
  }
  if (from < word.length) spans.push({ word: word.slice(from), start: at + from, end: at + word.length });
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The words of a text with their offsets, as the tokenizer and the index see them: runs of letters,
 * marks and digits, CJK runs as their bigrams, Thai, Lao, Khmer and Burmese runs as their dictionary
 * words (for snippets and explanations, which point at the words a query matched).
 */
export function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  const unspaced = hasUnspacedScript(text);
  for (const m of text.matchAll(WORD)) {
    if (unspaced) wordSpansOf(m[0], m.index, spans);
    else spans.push({ word: m[0], start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** One word of a tokenizer as the words it stands for. */
export function splitUnspacedWord(word: string): string[] {
  const spans: WordSpan[] = [];
  wordSpansOf(word, 0, spans);
  return spans.map((span) => span.word);
}

/**
 * The text with each run of these scripts replaced by its words between spaces, for the `german`
 * analyzer (the chunks' tsvectors and the query's lexemes alike); other text unchanged.
 */
export function spaceUnspacedWords(text: string): string {
  if (!hasUnspacedScript(text)) return text;
  return text.replace(UNSPACED_RUN, (run) => ` ${splitUnspacedWord(run).join(" ")} `);
}
