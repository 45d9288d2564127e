/**
 * BM25 query expansion across German and English for the recall pipeline (issue 6): the query's own words
 * plus their dictionary translations, so a German question also searches English chunks and vice versa.
 * Measured here: plain BM25 + a crude German→English translation lifted xquad_de2en nDCG@10 from 0.445 to
 * 0.725 (models README).
 *
 *   expandQueryTerms(lexicon: Lexicon, query: string, options?: ExpandQueryOptions): ExpandedTerm[]
 *
 * Returns surface words (lower-cased, not stemmed: PostgreSQL's text-search configuration stems them),
 * each with a weight for the BM25 sum: 1 for the query's own words, `translationWeight` × the
 * translation's share for translations, `compoundPartWeight` / parts for the parts of a German compound.
 * Words are translated in every direction the dictionary knows them (a short query's language is a
 * guess); stop words are neither kept nor translated. With `paraphraseWeight`, words of the query's
 * language also get round-trip paraphrases: their translations translated back ("Fluss" → river →
 * Strom), weighted by both shares (ADR 0650). A German clause-final particle is joined to its verb
 * and the verb expanded like a query word ("fand … statt" → stattfinden; ADR 0680); two adjacent words
 * the dictionary holds as one headword are translated as the phrase ("sign language" →
 * Gebärdensprache; ADR 0690); a German compound without a translation is translated by its parts, each
 * like a word (ADR 0700). A term reached several ways keeps its largest weight. With an empty lexicon
 * the result is just the query's words.
 */

import { type BoundedMemo, createBoundedMemo } from "../../../lib/bounded-memo.js";
import { decompoundWithLexicon } from "../lexicon/decompound-german.js";
import { detectLanguage } from "../lexicon/detect-language.js";
import { findTranslations } from "../lexicon/find-translations.js";
import { joinSeparableVerbs } from "../lexicon/join-separable-verbs.js";
import type { Lexicon, LexiconLanguage, Translation, TranslationDirection } from "../lexicon/lexicon.js";
import {
  DEFAULT_TRANSLATION_RANKING,
  rankTranslations,
  type TranslationRanking,
} from "../lexicon/rank-translations.js";
import { stemWord } from "../lexicon/stem-word.js";
import { STOPWORDS } from "../lexicon/stopwords.js";
import { DEFAULT_SYNONYM_POLICY, findSynonyms, type SynonymPolicy } from "../thesaurus/find-synonyms.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";

export interface ExpandQueryOptions {
  /** Translations kept per query word and direction (default 3). */
  readonly maxTranslationsPerWord?: number;
  /** Weight of a translation relative to an original word, times its share (default 1). */
  readonly translationWeight?: number;
  /** Total weight of a German compound's parts, split among them; 0 = do not split (default 0.5). */
  readonly compoundPartWeight?: number;
  /** Terms lighter than this are dropped (default 0.05). */
  readonly minWeight?: number;
  readonly ranking?: TranslationRanking;
  /** Synonyms of the query's words come from here (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  /** Weight of a synonym relative to the query word, shared among the word's senses (default 0: none). */
  readonly synonymWeight?: number;
  /** Which words get synonyms (few senses, short synonym lists), per language. */
  readonly synonymPolicy?: Readonly<Record<LexiconLanguage, SynonymPolicy>>;
  /**
   * Weight of a round-trip paraphrase (translated and back) relative to the query word, times both
   * translations' shares (default 0: none). Searched like a synonym: kind "synonym".
   */
  readonly paraphraseWeight?: number;
}

export interface ExpandedTerm {
  readonly term: string;
  readonly weight: number;
  /** The language the term is a word of. */
  readonly language: LexiconLanguage;
  /**
   * "query": a word of the query; the others were added by the expansion ("synonym": from the
   * thesaurus or a round trip through the dictionary, both standing in for their word; "separable-verb":
   * a German verb whose particle ends the clause, joined again — "fand … statt" → stattfinden — standing
   * in for its finite form, which is `from`).
   */
  readonly kind: "query" | "translation" | "compound-part" | "synonym" | "separable-verb";
  /** The query word it came from. */
  readonly from: string;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const DIRECTIONS: ReadonlyArray<readonly [TranslationDirection, LexiconLanguage, LexiconLanguage]> = [
  ["de2en", "de", "en"],
  ["en2de", "en", "de"],
];

const DIGIT = /\p{N}/u;
const MIN_SYNONYM_LENGTH = 4;
/** A round trip follows the word's first translations and each one's first translations back. */
const PARAPHRASE_OUT = 3;
const PARAPHRASE_BACK = 4;

const isStopword = (word: string) => STOPWORDS.de.has(word) || STOPWORDS.en.has(word);
/** The words of a translation or synonym that are not stop words ("to walk" → walk). */
const contentWords = (text: string) => (text.match(WORD) ?? []).filter((part) => !isStopword(part));

/**
 * A recall expands its query twice with the same settings — for BM25 (recall/expand/build-query-texts.ts)
 * and for the built-in reranker's query words — and the dictionary look-ups were ~4 % of the service's
 * CPU under bench:load. The last few expansions per lexicon are kept: enough for the two calls of one
 * recall (and of the recalls running beside it), too few to act as a cache of popular queries.
 */
const RECENT_EXPANSIONS = 64;
const recentExpansions = new WeakMap<Lexicon, Map<string, readonly ExpandedTerm[]>>();

export function expandQueryTerms(
  lexicon: Lexicon,
  query: string,
  options: ExpandQueryOptions = {},
): ExpandedTerm[] {
  const maxTranslations = options.maxTranslationsPerWord ?? 3;
  const translationWeight = options.translationWeight ?? 1;
  const compoundPartWeight = options.compoundPartWeight ?? 0.5;
  const minWeight = options.minWeight ?? 0.05;
  const ranking = options.ranking ?? DEFAULT_TRANSLATION_RANKING;
  const synonymWeight = options.thesaurus === undefined ? 0 : (options.synonymWeight ?? 0);
  const synonymPolicy = options.synonymPolicy ?? DEFAULT_SYNONYM_POLICY;
  const paraphraseWeight = options.paraphraseWeight ?? 0;
  const key = [
    maxTranslations,
    translationWeight,
    compoundPartWeight,
    minWeight,
    ranking.priorExponent,
    ranking.cooccurrenceExponent,
    ranking.cognateBoost,
    synonymWeight,
    synonymWeight > 0 ? options.thesaurus?.fingerprint : "",
    synonymWeight > 0 ? JSON.stringify(synonymPolicy) : "",
    paraphraseWeight,
    query,
  ].join("\u0000");
  let recent = recentExpansions.get(lexicon);
  if (recent === undefined) {
    recent = new Map();
    recentExpansions.set(lexicon, recent);
  }
  const known = recent.get(key);
  if (known !== undefined) return [...known];
  const expanded = expand(lexicon, query, {
    maxTranslations,
    translationWeight,
    compoundPartWeight,
    minWeight,
    ranking,
    paraphraseWeight,
    synonyms:
      synonymWeight > 0 && options.thesaurus !== undefined
        ? {
            thesaurus: options.thesaurus,
            weight: synonymWeight,
            policy: synonymPolicy,
          }
        : undefined,
  });
  if (recent.size >= RECENT_EXPANSIONS) recent.delete(recent.keys().next().value ?? "");
  recent.set(key, expanded);
  return [...expanded];
}

function expand(
  lexicon: Lexicon,
  query: string,
  settings: {
    readonly maxTranslations: number;
    readonly translationWeight: number;
    readonly compoundPartWeight: number;
    readonly minWeight: number;
    readonly ranking: TranslationRanking;
    readonly paraphraseWeight: number;
    readonly synonyms:
      | {
          readonly thesaurus: Thesaurus;
          readonly weight: number;
          readonly policy: Readonly<Record<LexiconLanguage, SynonymPolicy>>;
        }
      | undefined;
  },
): ExpandedTerm[] {
  const { maxTranslations, translationWeight, compoundPartWeight, minWeight, ranking } = settings;
  const { synonyms, paraphraseWeight } = settings;
  const terms = new Map<string, ExpandedTerm>();
  const add = (term: ExpandedTerm) => {
    const current = terms.get(term.term);
    if (term.weight >= minWeight && (current === undefined || term.weight > current.weight))
      terms.set(term.term, term);
  };
  // A translation's content words, its share split among them ("take place" → take, place).
  const addTranslations = (
    translations: readonly Translation[] | undefined,
    language: LexiconLanguage,
    from: string,
  ) => {
    for (const { text, weight } of translations?.slice(0, maxTranslations) ?? []) {
      const parts = contentWords(text);
      for (const term of parts)
        add({
          term,
          weight: (translationWeight * weight) / parts.length,
          language,
          kind: "translation",
          from,
        });
    }
  };
  const allWords = query.normalize("NFC").toLowerCase().match(WORD) ?? [];
  const words = allWords.filter((word) => !isStopword(word));
  // Synonyms and paraphrases come from the query's language only: "virus" in the German thesaurus is
  // "Computervirus".
  const queryLanguage =
    synonyms === undefined && paraphraseWeight === 0 ? undefined : detectLanguage(allWords, lexicon);
  const synonymLanguage = synonyms === undefined ? undefined : queryLanguage;
  // German clause-final particles joined to their verbs, expanded like query words in their stead.
  const separable =
    queryLanguage === "de" || (queryLanguage === undefined && detectLanguage(allWords, lexicon) === "de")
      ? joinSeparableVerbs(query, lexicon)
      : [];
  const entries = [
    ...words.map((word) => ({ word, from: word, kind: "query" as const })),
    ...separable.map(({ verb, finite }) => ({ word: verb, from: finite, kind: "separable-verb" as const })),
  ];
  for (const { word, from, kind } of entries) {
    const knownIn = DIRECTIONS.filter(([direction]) => lexicon.has(word, direction));
    add({ term: word, weight: 1, language: knownIn[0]?.[1] ?? "de", kind, from });
    let translatedFromGerman = false;
    for (const [direction, , target] of DIRECTIONS) {
      const found = findTranslations(lexicon, word, direction, ranking);
      if (direction === "de2en" && found !== undefined) translatedFromGerman = true;
      addTranslations(found?.translations, target, from);
    }
    if (synonyms !== undefined && synonymLanguage !== undefined && !DIGIT.test(word)) {
      const policy = synonyms.policy[synonymLanguage];
      const found = findSynonyms(synonyms.thesaurus, lexicon, word, synonymLanguage, policy);
      for (const synonym of found?.synonyms ?? []) {
        const parts = contentWords(synonym);
        if (parts.length === 0 || (parts.length > 1 && !policy.multiWordParts)) continue;
        // Abbreviations and numerals ("x" for ten, "frg") match by accident more often than by meaning.
        if (parts.some((part) => part.length < MIN_SYNONYM_LENGTH || DIGIT.test(part))) continue;
        for (const part of parts) {
          add({
            term: part,
            weight: synonyms.weight / (found?.meanings ?? 1) / parts.length,
            language: synonymLanguage,
            kind: "synonym",
            from,
          });
        }
      }
    }
    if (paraphraseWeight > 0 && queryLanguage !== undefined && !DIGIT.test(word)) {
      for (const { term, weight } of roundTrip(lexicon, word, queryLanguage, ranking))
        add({
          term,
          weight: paraphraseWeight * weight,
          language: queryLanguage,
          kind: "synonym",
          from,
        });
    }
    if (compoundPartWeight > 0 && kind === "query") {
      const parts = decompoundWithLexicon(word, lexicon) ?? [];
      for (const part of parts) {
        add({
          term: part,
          weight: compoundPartWeight / parts.length,
          language: "de",
          kind: "compound-part",
          from,
        });
        // A compound the dictionary lacks ("Verteidigungsspieler") is translated by its parts
        // (defence, player), as the built-in embedder's translator does: else an English passage never
        // meets it in BM25. English says it in as many words, so each part's translations weigh as
        // a word's.
        if (!translatedFromGerman)
          addTranslations(findTranslations(lexicon, part, "de2en", ranking)?.translations, "en", from);
      }
    }
  }
  if (translationWeight > 0)
    for (const phrase of translatedPhrases(lexicon, allWords, ranking))
      addTranslations(phrase.translations, phrase.language, phrase.from);
  return [...terms.values()].sort(
    (left, right) => right.weight - left.weight || (left.term < right.term ? -1 : 1),
  );
}

/** A phrase's translations, into `language`, standing in for the phrase's word `from`. */
interface TranslatedPhrase {
  readonly translations: readonly Translation[];
  readonly language: LexiconLanguage;
  readonly from: string;
}

/**
 * Two adjacent content words the dictionary knows as one headword ("sign language" → Gebärdensprache,
 * "national anthem" → Nationalhymne, "Überstunden machen" → work overtime) are translated as the
 * phrase: an English phrase is often one German compound, which the words' own translations (Zeichen,
 * Sprache) never spell, and BM25 does not split a passage's compounds. Weighted like a word's
 * translation; stands in for the phrase's second word (in English its head). Pairs with a stop word
 * ("the ball" → Fußball) are left out: such headwords are idioms more often than what the query says.
 */
function translatedPhrases(
  lexicon: Lexicon,
  allWords: readonly string[],
  ranking: TranslationRanking,
): TranslatedPhrase[] {
  const found: TranslatedPhrase[] = [];
  for (let index = 0; index + 1 < allWords.length; index++) {
    const first = allWords[index] as string;
    const second = allWords[index + 1] as string;
    if (isStopword(first) || isStopword(second) || DIGIT.test(first) || DIGIT.test(second)) continue;
    for (const [direction, , target] of DIRECTIONS) {
      if (!lexicon.startsPhrase(first, direction)) continue;
      const translations = rankTranslations(lexicon, `${first} ${second}`, direction, ranking);
      if (translations.length > 0) found.push({ translations, language: target, from: second });
    }
  }
  return found;
}

interface Paraphrase {
  readonly term: string;
  readonly weight: number;
}

/**
 * A round trip is up to four dictionary look-ups a word, and recall expands each query twice (BM25 and
 * the reranker) while queries share words: a word's round trips are kept per lexicon (a memo of words,
 * not of queries; lib/bounded-memo.ts keeps the frequent ones).
 */
const ROUND_TRIP_MEMO = 4_096;
const roundTripMemos = new WeakMap<Lexicon, BoundedMemo<readonly Paraphrase[]>>();

/**
 * The word's paraphrases through the other language (pivoting, as in Bannard & Callison-Burch 2005):
 * its first PARAPHRASE_OUT translations, each translated back (first PARAPHRASE_BACK), weighted by the
 * product of both shares. Single words only (a phrase's parts would be other words); the word's own
 * stem, words containing it or contained in it, stop words, numerals and words under 4 letters are left out.
 */
function roundTrip(
  lexicon: Lexicon,
  word: string,
  language: LexiconLanguage,
  ranking: TranslationRanking,
): readonly Paraphrase[] {
  let memo = roundTripMemos.get(lexicon);
  if (memo === undefined) {
    memo = createBoundedMemo<readonly Paraphrase[]>(ROUND_TRIP_MEMO, 2);
    roundTripMemos.set(lexicon, memo);
  }
  const key = [ranking.priorExponent, ranking.cooccurrenceExponent, ranking.cognateBoost, word].join(
    "\u0000",
  );
  return memo.get(key, () => findRoundTrips(lexicon, word, language, ranking), language === "de" ? 0 : 1);
}

function findRoundTrips(
  lexicon: Lexicon,
  word: string,
  language: LexiconLanguage,
  ranking: TranslationRanking,
): readonly Paraphrase[] {
  const [out, back] = language === "de" ? (["de2en", "en2de"] as const) : (["en2de", "de2en"] as const);
  const own = stemWord(word, language);
  const found: Paraphrase[] = [];
  for (const pivot of findTranslations(lexicon, word, out, ranking)?.translations.slice(0, PARAPHRASE_OUT) ??
    []) {
    const pivotWord = singleWord(pivot.text);
    if (pivotWord === undefined) continue;
    const returns = findTranslations(lexicon, pivotWord, back, ranking)?.translations ?? [];
    for (const { text, weight } of returns.slice(0, PARAPHRASE_BACK)) {
      const term = singleWord(text);
      if (term === undefined || term.length < MIN_SYNONYM_LENGTH || DIGIT.test(term)) continue;
      // The word's own forms and compounds ("Flüsse", "Flussufer") are matched otherwise.
      if (stemWord(term, language) === own || term.includes(word) || word.includes(term)) continue;
      found.push({ term, weight: pivot.weight * weight });
    }
  }
  return found;
}

/** The one content word of a translation ("to walk" → walk), or undefined for a phrase. */
function singleWord(text: string): string | undefined {
  const parts = contentWords(text);
  return parts.length === 1 ? parts[0] : undefined;
}
