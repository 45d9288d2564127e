import type { AnalyzedLexeme } from "./analyze-query-texts.js";
import { idf } from "./bm25-parameters.js";
import type { WeightedTerm } from "./top-k-search.js";

/** A BM25 query term: weight = query weight × idf; maxImpact bounds its postings' impacts. */
export interface Bm25Term extends WeightedTerm {
  readonly maxImpact: number;
}

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
  const best = new Map<string, { weight: number; df: number; maxImpact: number }>();
  for (const { textIndex, lexeme, df, maxImpact } of analyzed) {
    const weight = textWeights[textIndex] ?? 0;
    const current = best.get(lexeme);
    if (current === undefined || weight > current.weight) best.set(lexeme, { weight, df, maxImpact });
  }
  return [...best]
    .filter(([, { weight, df }]) => weight > 0 && df > 0)
    .map(([term, { weight, df, maxImpact }]) => ({ term, weight: weight * idf(df, chunkCount), maxImpact }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
}
