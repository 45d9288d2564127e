import type { CompoundSplitter } from "./compound-splitter.js";
import type { QueryWord } from "./rerank-query.js";
import { stemsOf } from "./stem-like-index.js";
import { tokenizeWords } from "./tokenize-words.js";

/** What the built-in reranker sees that BM25 and the vectors do not. Each in [0, 1]. */
export interface RerankFeatures {
  /** Weighted share of the query's words the passage contains (BM25 rewards repeats of one word instead). */
  readonly coverage: number;
  /**
   * Weighted share of the query's words the passage contains more than once: a passage about a word
   * repeats it, one that mentions it in passing does not (BM25's tf saturates after a few repeats and
   * its idf favours a passing mention of rarer words; ADR 0550).
   */
  readonly repeat: number;
  /** Weighted share of the query's words inside the best window of PROXIMITY_WINDOW words. */
  readonly proximity: number;
  /** Share of the query's adjacent word pairs that occur in the passage in order, at most one word apart. */
  readonly phrase: number;
  /** Weighted share of the query's words in the title. */
  readonly title: number;
  /**
   * For episodic memories: exp(−age / RECENCY_DAYS), age from valid time — a conversation turn's message
   * time, not when it was stored (an imported history is not recent); 0 for other types.
   */
  readonly recency: number;
}

export const PROXIMITY_WINDOW = 12;
export const RECENCY_DAYS = 30;
const DAY_MS = 86_400_000;
const NOTHING_SKIPPED: ReadonlySet<keyof RerankFeatures> = new Set();

/** Which query word a token matches (−1: none), memoised per query: texts repeat their words. */
export type TokenMatcher = (token: string) => number;

export function createTokenMatcher(query: readonly QueryWord[]): TokenMatcher {
  // The first query word holding each stem: a token's match is the smallest of its three lookups,
  // which is the first query word holding the token or one of its stems (three lookups per distinct
  // token instead of three per query word; bench:load profile, issue 15).
  const firstWord = new Map<string, number>();
  query.forEach((q, i) => {
    for (const stem of q.stems) if (!firstWord.has(stem)) firstWord.set(stem, i);
  });
  const lookup = (stem: string) => firstWord.get(stem) ?? Number.MAX_SAFE_INTEGER;
  const memo = new Map<string, number>();
  return (token) => {
    let index = memo.get(token);
    if (index === undefined) {
      const [german, english] = stemsOf(token);
      const first = Math.min(lookup(token), lookup(german), lookup(english));
      index = first === Number.MAX_SAFE_INTEGER ? -1 : first;
      memo.set(token, index);
    }
    return index;
  };
}

/** The weighted share of the query's words that occur at least twice among `matches`. */
function repeatedShare(matches: readonly number[], query: readonly QueryWord[], total: number): number {
  const seen = new Uint8Array(query.length);
  let sum = 0;
  for (const i of matches) {
    if (i < 0 || seen[i] === 2) continue;
    seen[i] = (seen[i] ?? 0) + 1;
    if (seen[i] === 2) sum += query[i]?.weight ?? 0;
  }
  return total > 0 ? sum / total : 0;
}

function weightedShare(indexes: Iterable<number>, query: readonly QueryWord[], total: number): number {
  let sum = 0;
  for (const i of new Set(indexes)) if (i >= 0) sum += query[i]?.weight ?? 0;
  return total > 0 ? sum / total : 0;
}

/**
 * The largest weightedShare of any PROXIMITY_WINDOW words that start at a matched word. Same sums as
 * weightedShare over each window (weights added in order of first occurrence), without a slice and
 * a Set per matched word: a stamp per query word marks what the current window has counted.
 */
function bestWindowShare(matches: readonly number[], query: readonly QueryWord[], total: number): number {
  const stamps = new Uint32Array(query.length);
  let window = 0;
  let best = 0;
  for (let start = 0; start < matches.length; start++) {
    if ((matches[start] ?? -1) < 0) continue;
    window++;
    let sum = 0;
    const end = Math.min(matches.length, start + PROXIMITY_WINDOW);
    for (let j = start; j < end; j++) {
      const i = matches[j] ?? -1;
      if (i < 0 || stamps[i] === window) continue;
      stamps[i] = window;
      sum += query[i]?.weight ?? 0;
    }
    best = Math.max(best, total > 0 ? sum / total : 0);
  }
  return best;
}

export function rerankFeatures(
  query: readonly QueryWord[],
  candidate: {
    readonly title: string;
    readonly text: string;
    readonly memoryType?: string;
    readonly validFrom?: Date;
  },
  now: Date,
  match: TokenMatcher = createTokenMatcher(query),
  /** Features the caller gives no weight: left at 0 without computing them. */
  skip: ReadonlySet<keyof RerankFeatures> = NOTHING_SKIPPED,
  /**
   * A passage word that matches no query word is matched by its compound parts, in its place (ADR
   * 0660): "Geheimpfad" holds "secret" and "path" for every feature, phrase order included.
   */
  split?: CompoundSplitter,
  /**
   * A passage's German separable verbs, finite form → joined infinitive ("fand … statt" → fand:
   * stattfinden; ADR 0680): a finite verb that matches no query word is matched as its joined verb.
   */
  joinVerbs?: (text: string) => ReadonlyMap<string, string>,
): RerankFeatures {
  const total = query.reduce((sum, q) => sum + q.weight, 0);
  const matches: number[] = [];
  const verbs = joinVerbs?.(candidate.text);
  for (const token of tokenizeWords(candidate.text)) {
    let index = match(token);
    if (index < 0 && verbs !== undefined) {
      const verb = verbs.get(token);
      if (verb !== undefined) index = match(verb);
    }
    const parts = index < 0 && split !== undefined ? split(token) : undefined;
    if (parts === undefined) matches.push(index);
    else for (const part of parts) matches.push(match(part));
  }
  const coverage = weightedShare(matches, query, total);
  const repeat = skip.has("repeat") ? 0 : repeatedShare(matches, query, total);
  const proximity = skip.has("proximity") ? 0 : bestWindowShare(matches, query, total);
  let pairs = 0;
  let found = 0;
  for (let q = 0; !skip.has("phrase") && q + 1 < query.length; q++) {
    pairs++;
    for (let i = 0; i < matches.length; i++) {
      if (matches[i] !== q) continue;
      if (matches[i + 1] === q + 1 || matches[i + 2] === q + 1) {
        found++;
        break;
      }
    }
  }
  const title = weightedShare(tokenizeWords(candidate.title).map(match), query, total);
  const recency =
    candidate.memoryType === "episodic" && candidate.validFrom !== undefined
      ? Math.exp(-Math.max(0, now.getTime() - candidate.validFrom.getTime()) / (RECENCY_DAYS * DAY_MS))
      : 0;
  return { coverage, repeat, proximity, phrase: pairs > 0 ? found / pairs : 0, title, recency };
}
