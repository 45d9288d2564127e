/**
 * Everything the embedder derives from one word, computed once and remembered: the clues for language
 * detection and, per language, the features the word adds — its stem, its translations' stems, its
 * compound parts — as feature hashes with their weights. A text's word then costs one memo lookup and no
 * string hashing (measured 2026-12-02: the two per-word memos, the stop-word sets, the digit test and the
 * hashing of every feature name were most of the embedder's time). Per language lazily: a German text
 * never asks for a word's English facts. Kept compact — numbers in one array, shared empty arrays — as
 * the memo holds up to 40k of them (issue 20).
 */
import { createBoundedMemo } from "../../../lib/bounded-memo.js";
import { dictionaryVote, type LanguageClues, languageClues } from "../lexicon/detect-language.js";
import type { Lexicon, LexiconLanguage } from "../lexicon/lexicon.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import { DEFAULT_SYNONYM_POLICY, findSynonyms } from "../thesaurus/find-synonyms.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import type { WordAnalyzer } from "./analyze-word.js";
import type { BuiltinEmbedderSettings } from "./builtin-embedder-settings.js";
import { featureHash } from "./feature-hash.js";
import { tokenizeWords } from "./tokenize-words.js";
import type { WordTranslator } from "./word-translator.js";

/** What one word adds to a text of its language (extract-text-features.ts turns it into features). */
export interface WordFeatures {
  readonly stopword: boolean;
  /** Only number characters: the word itself goes to both languages' blocks. */
  readonly digits: boolean;
  /** A content word that starts a multi-word headword of the dictionary ("national" of "national anthem"). */
  readonly startsPhrase: boolean;
  /** The word's idf in this language (word-idf.ts). */
  readonly idf: number;
  /** The idf times the stop-word factor; ≤ 0: the word adds nothing. */
  readonly weightedIdf: number;
  /** `weightedIdf ** idfPower`. */
  readonly weight: number;
  /** Hash of the stem (of the word itself for numbers). */
  readonly stemHash: number;
  /**
   * Per translation, best first, three numbers: its stem's hash, its share of the word (the shares sum
   * to 1) and `√(weightedIdf · its idf) ** idfPower`, to be multiplied by the purpose's translation weight.
   */
  readonly translations: readonly number[];
  /** Hashes of a German compound's parts' stems (one entry per part, repeats kept). */
  readonly compoundHashes: readonly number[];
  /**
   * Per thesaurus synonym stem (ADR 0540), two numbers: its hash and its share of the word (1 / senses,
   * split among a multi-word synonym's content words, and among the synonyms when the settings say so),
   * to be multiplied by the purpose's synonym weight and the word's weight. Empty without a thesaurus.
   */
  readonly synonyms: readonly number[];
}

/** Numbers per synonym in `WordFeatures.synonyms`. */
export const SYNONYM_STRIDE = 2;

/** Numbers per translation in `WordFeatures.translations`. */
export const TRANSLATION_STRIDE = 3;

export interface WordFactsContext {
  readonly settings: Pick<
    BuiltinEmbedderSettings,
    "idfPower" | "stopwordWeight" | "translationSharePower" | "synonymSplit"
  >;
  readonly lexicon: Lexicon;
  readonly analyze: WordAnalyzer;
  readonly translator: WordTranslator;
  /** Synonyms' stems come from here (ADR 0540); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
}

/**
 * The stems of a word's synonyms in its own language, with their shares (see WordFeatures.synonyms):
 * the words query expansion would search for it (find-synonyms.ts, the same per-language policy),
 * without the word's own stem and each stem once.
 */
function synonymFeatures(
  word: string,
  language: LexiconLanguage,
  ownStem: string,
  context: WordFactsContext,
): readonly number[] {
  const { thesaurus, lexicon, analyze, settings } = context;
  if (thesaurus === undefined) return NONE;
  const policy = DEFAULT_SYNONYM_POLICY[language];
  const found = findSynonyms(thesaurus, lexicon, word, language, policy);
  if (found === undefined) return NONE;
  const shares = new Map<string, number>();
  const perSynonym = settings.synonymSplit ? 1 / found.synonyms.length : 1;
  for (const synonym of found.synonyms) {
    const parts = tokenizeWords(synonym).filter((part) => !STOPWORDS[language].has(part));
    if (parts.length === 0 || (parts.length > 1 && !policy.multiWordParts)) continue;
    for (const part of parts) {
      const stem = analyze(part, language).stem;
      if (stem === ownStem) continue;
      const share = perSynonym / found.meanings / parts.length;
      shares.set(stem, Math.max(shares.get(stem) ?? 0, share));
    }
  }
  if (shares.size === 0) return NONE;
  const numbers: number[] = [];
  for (const [stem, share] of shares) numbers.push(featureHash(stem), share);
  return numbers;
}

const DIGITS = /^\p{N}+$/u;
const NONE: readonly number[] = [];

function wordFeatures(word: string, language: LexiconLanguage, context: WordFactsContext): WordFeatures {
  const { settings, lexicon, analyze, translator } = context;
  const stopword = STOPWORDS[language].has(word);
  const digits = DIGITS.test(word);
  const analysis = analyze(word, language);
  const weightedIdf = analysis.idf * (stopword ? settings.stopwordWeight : 1);
  let translations = NONE;
  if (!digits && weightedIdf > 0) {
    const translated = translator.translate(word, language).stems;
    const power = settings.translationSharePower;
    let total = 0;
    for (const { share } of translated) total += share ** power;
    const numbers: number[] = [];
    for (const { stem, share, idf } of translated) {
      // The geometric mean of both idfs: a rare word's translation to a common word ("Gefecht" → "fight")
      // still counts, a common word's rare translation does not dominate.
      numbers.push(
        featureHash(stem),
        share ** power / total,
        Math.sqrt(weightedIdf * idf) ** settings.idfPower,
      );
    }
    if (numbers.length > 0) translations = numbers;
  }
  const parts = analysis.compoundParts;
  return {
    stopword,
    digits,
    startsPhrase: !stopword && !digits && lexicon.startsPhrase(word, language === "de" ? "de2en" : "en2de"),
    idf: analysis.idf,
    weightedIdf,
    weight: weightedIdf ** settings.idfPower,
    stemHash: featureHash(digits ? word : analysis.stem),
    translations,
    compoundHashes: parts.length > 0 ? parts.map(featureHash) : NONE,
    synonyms:
      !digits && !stopword && weightedIdf > 0
        ? synonymFeatures(word, language, analysis.stem, context)
        : NONE,
  };
}

const GERMAN_STOPWORD = 1;
const ENGLISH_STOPWORD = 2;
const HAS_GERMAN_LETTERS = 4;
const NO_VOTE = 2;

/** One word's facts; a class, not closures per word, for the memo's sake. */
export class WordFacts implements LanguageClues {
  private readonly clues: number;
  private vote = NO_VOTE;
  private german: WordFeatures | undefined;
  private english: WordFeatures | undefined;

  constructor(
    /** The word (the memo's own copy). */
    readonly word: string,
    private readonly context: WordFactsContext,
  ) {
    const clues = languageClues(word, context.lexicon);
    this.clues =
      (clues.germanStopword ? GERMAN_STOPWORD : 0) |
      (clues.englishStopword ? ENGLISH_STOPWORD : 0) |
      (clues.germanLetters ? HAS_GERMAN_LETTERS : 0);
  }

  get germanStopword(): boolean {
    return (this.clues & GERMAN_STOPWORD) !== 0;
  }

  get englishStopword(): boolean {
    return (this.clues & ENGLISH_STOPWORD) !== 0;
  }

  get germanLetters(): boolean {
    return (this.clues & HAS_GERMAN_LETTERS) !== 0;
  }

  dictionaryVote(): number {
    if (this.vote === NO_VOTE) this.vote = dictionaryVote(this.word, this.context.lexicon);
    return this.vote;
  }

  features(language: LexiconLanguage): WordFeatures {
    if (language === "de") {
      this.german ??= wordFeatures(this.word, "de", this.context);
      return this.german;
    }
    this.english ??= wordFeatures(this.word, "en", this.context);
    return this.english;
  }
}

export type WordFactsLookup = (word: string) => WordFacts;

/** Words kept (lib/bounded-memo.ts): frequent words stay, one-off words pass through. */
const MEMO_CAPACITY = 40_000;

/** A memo of word facts (one per embedder: the facts depend on its settings and lexicon). */
export function createWordFactsLookup(context: WordFactsContext): WordFactsLookup {
  const memo = createBoundedMemo<WordFacts>(MEMO_CAPACITY);
  // The word as the memo keeps it (its own copy, lib/own-string.ts): the facts keep it for later languages.
  return (word) => memo.get(word, (own) => new WordFacts(own, context));
}
