import type { AnalyzedLexeme } from "./analyze-query-texts.js";
import { idf } from "./bm25-parameters.js";
import type { WeightedTerm } from "./scored-chunk.js";

/** A BM25 query term: weight = query weight × idf. */
export type Bm25Term = WeightedTerm;

/**
 * The BM25 terms of a query: each lexeme once, weighted by idf times the largest weight of the query
 * texts it came from (1 for the user's words, less for expansions — a translation or compound part
 * that is also a query word keeps the query word's full weight). Lexemes no current chunk contains
 * are dropped: they cannot contribute.
 */
export function planBm25Terms(
  analyzed: readonly AnalyzedLexeme[],
  textWeights: readonly number[],
  chunkCount: number,
): Bm25Term[] {
  const best = new Map<string, { weight: number; df: number }>();
  for (const { textIndex, lexeme, df } of analyzed) {
    const weight = textWeights[textIndex] ?? 0;
    const current = best.get(lexeme);
    if (current === undefined || weight > current.weight) best.set(lexeme, { weight, df });
  }
  return [...best]
    .filter(([, { weight, df }]) => weight > 0 && df > 0)
    .map(([term, { weight, df }]) => ({ term, weight: weight * idf(df, chunkCount) }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
}
