import { expandQueryTerms } from "../../models/lexicon/expand-query-terms.js";
import type { Lexicon } from "../../models/lexicon/lexicon.js";

/**
 * The texts BM25 analyses for a query, each with a weight: the query itself (1), then, with a lexicon,
 * dictionary translations of its words into the other language and the parts of its German compounds
 * (core/models/lexicon/expand-query-terms.ts). Every text goes through the same `german` analyzer as the
 * chunks; planBm25Terms keeps each resulting lexeme once, at its largest weight.
 */
export interface QueryTexts {
  readonly texts: readonly string[];
  readonly weights: readonly number[];
}

export interface QueryExpansionSettings {
  /** Weight of a translation relative to a query word, times its share (0: no translation). */
  readonly translationWeight: number;
  /** Total weight of a compound's parts (0: no splitting). */
  readonly compoundPartWeight: number;
}

/** Measured with `npm run eval` (docs/recall.md "Query expansion"). */
export const DEFAULT_QUERY_EXPANSION: QueryExpansionSettings = {
  translationWeight: 1,
  compoundPartWeight: 0.5,
};

export function buildQueryTexts(
  query: string,
  lexicon: Lexicon | undefined,
  settings: QueryExpansionSettings = DEFAULT_QUERY_EXPANSION,
): QueryTexts {
  const texts = [query];
  const weights = [1];
  if (lexicon !== undefined && (settings.translationWeight > 0 || settings.compoundPartWeight > 0)) {
    for (const term of expandQueryTerms(lexicon, query, settings)) {
      if (term.kind === "query") continue;
      texts.push(term.term);
      weights.push(term.weight);
    }
  }
  return { texts, weights };
}
