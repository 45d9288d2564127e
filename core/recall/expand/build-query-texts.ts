import { createEmptyLexicon } from "../../models/lexicon/create-lexicon.js";
import type { Lexicon } from "../../models/lexicon/lexicon.js";
import { expandQueryTerms } from "../../models/query-terms/expand-query-terms.js";
import type { Thesaurus } from "../../models/thesaurus/thesaurus.js";

/**
 * The texts BM25 analyses for a query, each with a weight: the query itself (1), then, with a lexicon,
 * dictionary translations of its words into the other language and the parts of its German compounds
 * (core/models/query-terms/expand-query-terms.ts), and, with a thesaurus, synonyms of its words (ADR 0520). Every text goes through the same `german` analyzer as the
 * chunks; planBm25Terms keeps each resulting lexeme once, at its largest weight.
 */
export interface QueryTexts {
  readonly texts: readonly string[];
  readonly weights: readonly number[];
  /** Per text: the query word it is a synonym of; undefined for the query and its other expansions. */
  readonly synonymOf: readonly (string | undefined)[];
}

export interface QueryExpansionSettings {
  /** Weight of a translation relative to a query word, times its share (0: no translation). */
  readonly translationWeight: number;
  /** Total weight of a compound's parts (0: no splitting). */
  readonly compoundPartWeight: number;
  /** Weight of a thesaurus synonym, shared among the word's senses (0: no synonyms). */
  readonly synonymWeight: number;
  /** Weight of a round-trip paraphrase through the other language, times both shares (0: none; ADR 0650). */
  readonly paraphraseWeight: number;
}

/** Measured with `npm run eval` (docs/recall.md "Query expansion"). */
export const DEFAULT_QUERY_EXPANSION: QueryExpansionSettings = {
  translationWeight: 1,
  compoundPartWeight: 0.5,
  synonymWeight: 0.5,
  paraphraseWeight: 1,
};

/** Empty, for a thesaurus without a lexicon (tests, a process without FreeDict). */
const NO_LEXICON = createEmptyLexicon();

export function buildQueryTexts(
  query: string,
  lexicon: Lexicon | undefined,
  settings: QueryExpansionSettings = DEFAULT_QUERY_EXPANSION,
  thesaurus?: Thesaurus | undefined,
): QueryTexts {
  const texts = [query];
  const weights = [1];
  const synonymOf: (string | undefined)[] = [undefined];
  const synonyms = thesaurus !== undefined && thesaurus.sources.length > 0 && settings.synonymWeight > 0;
  if (
    (lexicon !== undefined && (settings.translationWeight > 0 || settings.compoundPartWeight > 0)) ||
    synonyms
  ) {
    const options = synonyms ? { ...settings, thesaurus } : settings;
    for (const term of expandQueryTerms(lexicon ?? NO_LEXICON, query, options)) {
      if (term.kind === "query") continue;
      texts.push(term.term);
      weights.push(term.weight);
      synonymOf.push(term.kind === "synonym" ? term.from : undefined);
    }
  }
  return { texts, weights, synonymOf };
}
