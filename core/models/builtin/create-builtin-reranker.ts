import type { Lexicon } from "../lexicon/lexicon.js";
import type { Reranker } from "../reranker.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import { createTokenMatcher, type RerankFeatures, rerankFeatures } from "./rerank-features.js";
import { analyzeRerankQuery } from "./rerank-query.js";

export const BUILTIN_RERANKER_ID = "builtin-features-v1";

/** Linear weights of the features; measured with `npm run eval` (docs/recall.md "Rerank"). */
export type RerankWeights = Readonly<Record<keyof RerankFeatures, number>>;

/**
 * Measured on the six eval sets (docs/recall.md "Rerank"): coverage lifts nDCG@10 on all of them when
 * blended with the fused order; proximity and phrase order lifted the English and cross-lingual sets
 * but cost xquad_de more than they gave, so they are computed and stay off until a set shows a gain.
 * Title match is kept small (derived titles repeat the first line); recency only touches episodic
 * memories, which the eval sets do not have.
 */
export const DEFAULT_RERANK_WEIGHTS: RerankWeights = {
  coverage: 1,
  proximity: 0,
  phrase: 0,
  title: 0.1,
  recency: 0.2,
};

export interface BuiltinRerankerOptions {
  /** Matches query words across German and English through their dictionary translations. */
  readonly lexicon?: Lexicon | undefined;
  /** Synonyms of the query's words count as the words, as in BM25 (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly weights?: Partial<RerankWeights>;
  readonly now?: () => Date;
}

/**
 * The built-in offline reranker (issue #6 item 5): no model weights, a linear score over features the
 * first stage lacks — coverage of the query's words (cross-lingual through the dictionary), their
 * proximity and order, title match, and recency for episodic memories. Recall blends its order with
 * the fused order (core/recall/rerank/blend-reranked.ts).
 */
export function createBuiltinReranker(options: BuiltinRerankerOptions = {}): Reranker {
  const weights = { ...DEFAULT_RERANK_WEIGHTS, ...options.weights };
  const features = Object.keys(weights) as (keyof RerankFeatures)[];
  // Features weighted 0 (proximity and phrase by default) add nothing: not computed.
  const skip = new Set(features.filter((key) => weights[key] === 0));
  const now = options.now ?? (() => new Date());
  return {
    id: BUILTIN_RERANKER_ID,
    async rerank(query, candidates) {
      const words = analyzeRerankQuery(query, options.lexicon, options.thesaurus);
      const at = now();
      const match = createTokenMatcher(words);
      return candidates.map((c) => {
        const f = rerankFeatures(words, c, at, match, skip);
        return features.reduce((sum, key) => sum + weights[key] * f[key], 0);
      });
    },
  };
}
