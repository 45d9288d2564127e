/**
 * Turns the two FreeDict dictionaries into the lexicon's lookup tables. Each direction merges both
 * dictionaries: deu-eng read forwards and eng-deu read backwards (its German translations become German
 * headwords), which adds inflected forms and senses the forward dictionary lists under other headwords.
 * A translation's score is the number of entries that pair it with the headword, each discounted by its
 * position in the entry's list (the dictionary lists the most common sense first). Each translation also
 * carries how often the pair occurs in the example sentences (see example-cooccurrence.ts).
 */
import { countExampleCooccurrences } from "./example-cooccurrence.js";
import type { LexiconLanguage, TranslationDirection } from "./lexicon.js";
import { parseFreedictEntry } from "./parse-freedict-entry.js";
import type { DictdDictionary } from "./read-dictd-dictionary.js";
import { buildSortedStringTable, type SortedStringTable, type StringLookup } from "./sorted-string-table.js";

/** Separates translations in a table value; `UNIT` separates a translation from its weight. */
export const RECORD_SEPARATOR = "\u001e";
export const UNIT_SEPARATOR = "\u001f";

const MAX_HEADWORD_WORDS = 3;
/** Kept generously: `rankTranslations` re-ranks them with a frequency prior at lookup time. */
const MAX_TRANSLATIONS_PER_HEADWORD = 24;
const POSITION_DISCOUNT = 0.3;

/** The lexicon's tables as the lexicon reads them: built in memory, or read back from the cache file. */
export interface LexiconLookups<Table extends StringLookup = StringLookup> {
  readonly translations: Readonly<Record<TranslationDirection, Table>>;
  /** Inflected form → dictionary form (went → go, ging → gehen). */
  readonly lemmas: Readonly<Record<LexiconLanguage, Table>>;
  readonly exampleFrequency: Readonly<Record<LexiconLanguage, Table>>;
  readonly exampleCount: Readonly<Record<LexiconLanguage, number>>;
}

/** The tables as built from the dictionaries, with the bytes the cache file is written from. */
export type LexiconTables = LexiconLookups<SortedStringTable>;

/** Rows longer than this (common words with hundreds of reverse translations) switch to a Map. */
const MAX_SCANNED_ROW = 32;

/**
 * Translation scores of one direction. Rows are flat `[translationId, score, …]` arrays over interned
 * translation strings: most headwords have a handful of translations, where a linear scan beats a Map and
 * allocates far less (the build touches ≈ 2M pairs).
 */
class ScoreTable {
  readonly rows = new Map<string, number[] | Map<number, number>>();
  readonly #ids = new Map<string, number>();
  readonly #texts: string[] = [];

  add(headword: string, translation: string, score: number): void {
    if (headword === translation) return;
    let id = this.#ids.get(translation);
    if (id === undefined) {
      id = this.#texts.length;
      this.#ids.set(translation, id);
      this.#texts.push(translation);
    }
    const row = this.rows.get(headword);
    if (row === undefined) {
      this.rows.set(headword, [id, score]);
      return;
    }
    if (row instanceof Map) {
      row.set(id, (row.get(id) ?? 0) + score);
      return;
    }
    for (let index = 0; index < row.length; index += 2) {
      if (row[index] === id) {
        row[index + 1] = (row[index + 1] ?? 0) + score;
        return;
      }
    }
    row.push(id, score);
    if (row.length > 2 * MAX_SCANNED_ROW) this.rows.set(headword, new Map(pairsOf(row)));
  }

  /** Each headword's single best translation, unweighted (for the lemma tables). */
  encodeBest(): Map<string, string> {
    const encoded = new Map<string, string>();
    for (const [headword, row] of this.rows) {
      const [best] = [...(row instanceof Map ? row : pairsOf(row))].sort((left, right) => right[1] - left[1]);
      if (best !== undefined) encoded.set(headword, this.#texts[best[0]] ?? "");
    }
    return encoded;
  }

  /**
   * Each headword's best translations, weights normalised to sum 1, with how often the pair occurs in
   * the example sentences (`cooccurrences(headword, translation)`), encoded as a table value.
   */
  encode(cooccurrences: (headword: string, translation: string) => number): Map<string, string> {
    const encoded = new Map<string, string>();
    for (const [headword, row] of this.rows) {
      const pairs = [...(row instanceof Map ? row : pairsOf(row))].map(([id, score]): [string, number] => [
        this.#texts[id] ?? "",
        score,
      ]);
      const best = pairs.sort((left, right) => right[1] - left[1]).slice(0, MAX_TRANSLATIONS_PER_HEADWORD);
      const total = best.reduce((sum, [, score]) => sum + score, 0);
      encoded.set(
        headword,
        best
          .map(
            ([translation, score]) =>
              `${translation}${UNIT_SEPARATOR}${(score / total).toFixed(4)}${UNIT_SEPARATOR}${cooccurrences(headword, translation)}`,
          )
          .join(RECORD_SEPARATOR),
      );
    }
    return encoded;
  }
}

function pairsOf(row: readonly number[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let index = 0; index < row.length; index += 2) pairs.push([row[index] ?? 0, row[index + 1] ?? 0]);
  return pairs;
}

function wordCount(text: string): number {
  let count = 1;
  for (let index = text.indexOf(" "); index >= 0; index = text.indexOf(" ", index + 1)) count++;
  return count;
}

const WORD = /\p{L}[\p{L}\p{M}'’]*/gu;

function countExampleWords(sentences: ReadonlySet<string>): Map<string, string> {
  const counts = new Map<string, number>();
  for (const sentence of sentences) {
    const words = new Set(sentence.toLowerCase().match(WORD) ?? []);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return new Map([...counts].map(([word, count]) => [word, String(count)]));
}

/** Long headwords are whole sentences (examples filed as entries); surrogates break the table's byte order. */
function isKeptHeadword(headword: string): boolean {
  return (
    headword.length > 0 && wordCount(headword) <= MAX_HEADWORD_WORDS && !/[\uD800-\uDFFF]/.test(headword)
  );
}

export interface LexiconTablesBuilder {
  /** Reads one dictionary's entries; call once per installed dictionary, then `finish`. */
  add(dictionary: DictdDictionary, source: LexiconLanguage, target: LexiconLanguage): void;
  finish(): LexiconTables;
}

/**
 * Dictionaries are added one at a time so that each decompressed file (≈ 100 MB) can be dropped before
 * the next is read.
 */
export function createLexiconTablesBuilder(): LexiconTablesBuilder {
  const scores: Record<TranslationDirection, ScoreTable> = {
    de2en: new ScoreTable(),
    en2de: new ScoreTable(),
  };
  const sentences: Record<LexiconLanguage, Set<string>> = { de: new Set(), en: new Set() };
  const sentencePairs = new Set<string>();
  const lemmas: Record<LexiconLanguage, ScoreTable> = { de: new ScoreTable(), en: new ScoreTable() };
  return {
    add(dictionary, source, target) {
      const forward = source === "de" ? scores.de2en : scores.en2de;
      const backward = source === "de" ? scores.en2de : scores.de2en;
      for (const { headwords, text } of dictionary.entries()) {
        const entry = parseFreedictEntry(text, source, target);
        const keys = headwords.map((headword) => headword.toLowerCase()).filter(isKeptHeadword);
        const reverseHeadword = isKeptHeadword(entry.headword) ? entry.headword : undefined;
        entry.translations.forEach((translation, position) => {
          const score = 1 / (1 + POSITION_DISCOUNT * position);
          for (const key of keys) forward.add(key, translation, score);
          if (reverseHeadword !== undefined && wordCount(translation) <= MAX_HEADWORD_WORDS) {
            backward.add(translation, reverseHeadword, score);
          }
        });
        // Single-word headwords only: "shrive sb." and phrases are not what a text's word is a form of.
        // German cross references also list the forms of synonyms ("bedeuten" lists "hieß" of heißen);
        // a form and its verb almost always share the first letter (ging/gehen, kam/kommen, hieß/heißen).
        if (entry.headword.length > 0 && !entry.headword.includes(" ")) {
          for (const form of entry.inflectedForms) {
            if (source === "en" || form[0] === entry.headword[0]) lemmas[source].add(form, entry.headword, 1);
          }
        }
        for (const example of entry.examples) {
          sentences[source].add(example.source);
          sentences[target].add(example.target);
          const [german, english] =
            source === "de" ? [example.source, example.target] : [example.target, example.source];
          sentencePairs.add(`${german}\t${english}`);
        }
      }
    },
    finish() {
      const cooccurrences = countExampleCooccurrences(
        [...sentencePairs].map((pair): [string, string] => {
          const [german = "", english = ""] = pair.split("\t");
          return [german, english];
        }),
      );
      return {
        translations: {
          de2en: buildSortedStringTable(scores.de2en.encode(cooccurrences)),
          en2de: buildSortedStringTable(
            scores.en2de.encode((english, german) => cooccurrences(german, english)),
          ),
        },
        lemmas: {
          de: buildSortedStringTable(lemmas.de.encodeBest()),
          en: buildSortedStringTable(lemmas.en.encodeBest()),
        },
        exampleFrequency: {
          de: buildSortedStringTable(countExampleWords(sentences.de)),
          en: buildSortedStringTable(countExampleWords(sentences.en)),
        },
        exampleCount: { de: sentences.de.size, en: sentences.en.size },
      };
    },
  };
}
