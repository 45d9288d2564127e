import type { Lexicon } from "../models/lexicon/lexicon.js";
import type { TransactionSql } from "../store/database.js";
import { analyzeQueryTexts } from "./bm25/analyze-query-texts.js";
import { type Bm25Term, planBm25Terms } from "./bm25/plan-bm25-terms.js";
import { type CollectionStatistics, readCollectionStatistics } from "./bm25/read-collection-statistics.js";
import { searchBm25 } from "./bm25/search-bm25.js";
import { searchBm25At } from "./bm25/search-bm25-at.js";
import type { ScoredChunk } from "./bm25/top-k-search.js";
import {
  buildQueryTexts,
  DEFAULT_QUERY_EXPANSION,
  type QueryExpansionSettings,
} from "./expand/build-query-texts.js";
import { compoundJoinCandidates } from "./expand/compound-join-candidates.js";
import { findCompoundTerms } from "./expand/find-compound-terms.js";

export interface FulltextResult {
  readonly hits: ScoredChunk[];
  /** The lexemes searched (for snippets and the built-in reranker's term matching). */
  readonly terms: readonly Bm25Term[];
  /** Whether the threshold reads or MaxScore finished the search ("at" for point-in-time). */
  readonly path: string;
}

export interface FulltextOptions {
  readonly query: string;
  readonly depth: number;
  readonly asOf?: Date | undefined;
  readonly lexicon?: Lexicon | undefined;
  readonly expansion?: QueryExpansionSettings;
  /** Weight of a vocabulary compound standing in for two query words. */
  readonly compoundJoinWeight?: number;
  /** Told the collection figures of every search, to keep the impact keys current. */
  readonly onCollection?: (collection: CollectionStatistics) => void;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The full-text channel: the query and its expansions analysed like the chunks, compounds of query
 * words looked up in the tenant's vocabulary (both in one round trip each, pipelined), then exact BM25.
 */
export async function searchFulltext(
  tx: TransactionSql,
  tenantId: string,
  options: FulltextOptions,
): Promise<FulltextResult> {
  const { texts, weights } = buildQueryTexts(
    options.query,
    options.lexicon,
    options.expansion ?? DEFAULT_QUERY_EXPANSION,
  );
  const words = options.query.normalize("NFC").match(WORD) ?? [];
  const [analyzed, collection, compounds] = await Promise.all([
    analyzeQueryTexts(tx, tenantId, texts),
    readCollectionStatistics(tx, tenantId),
    findCompoundTerms(tx, tenantId, compoundJoinCandidates(words)),
  ]);
  options.onCollection?.(collection);
  const compoundIndex = texts.length;
  const terms = planBm25Terms(
    [
      ...analyzed,
      ...compounds.map((c) => ({
        textIndex: compoundIndex,
        lexeme: c.term,
        df: c.df,
        maxImpact: c.maxImpact,
      })),
    ],
    [...weights, options.compoundJoinWeight ?? 1],
    collection.chunkCount,
  );
  if (options.asOf !== undefined) {
    const hits = await searchBm25At(tx, tenantId, terms, collection, options.asOf, options.depth);
    return { hits, terms, path: "at" };
  }
  const result = await searchBm25(tx, tenantId, terms, collection, options.depth);
  return { hits: result.hits, terms, path: result.stats.finishedBy };
}
