import type { TransactionSql } from "../../store/database.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import type { CollectionStatistics } from "../read-collection-statistics.js";
import type { Bm25IndexView } from "./bm25-index-view.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import type { ScoredChunk } from "./scored-chunk.js";
import { searchBm25 } from "./search-bm25.js";
import { type IndexedBm25Path, searchBm25Indexed } from "./search-bm25-indexed.js";

/** How a point-in-time BM25 search was answered (FulltextResult.path): the current part's path + "-at". */
export type IndexedAtPath = `${IndexedBm25Path}-at`;

/** The best k of two disjoint ranked lists: score descending, then chunk id ascending. */
export function mergeTopK(a: readonly ScoredChunk[], b: readonly ScoredChunk[], k: number): ScoredChunk[] {
  return [...a, ...b]
    .sort((x, y) => y.score - x.score || (x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0))
    .slice(0, k);
}

/**
 * BM25 from the tenant's in-process index: recall without `as_of` from the index alone (filtered as
 * search-bm25-indexed.ts filters). Point-in-time BM25 (`as_of`, ADR 0340): the chunks valid at T are the
 * current chunks already valid then — the index, restricted by valid_from — and the chunks closed
 * since T that were valid then, scored in PostgreSQL over the tenant's closed chunks only (few unless
 * the tenant rewrote much of itself since T). Both parts are scored with today's statistics, as the
 * SQL scorer scores point-in-time recall, and the two sets are disjoint, so the merged top k is the SQL
 * scorer's top k. A filter applies to both parts: to the current one as recall without `as_of`
 * applies it (the same path choice), to the closed one as the SQL scorer does. Undefined when the
 * shared index moved past this recall's snapshot (the caller asks SQL for all of it).
 */
export async function searchBm25FromIndex(
  tx: TransactionSql,
  tenantId: string,
  view: Bm25IndexView,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
  filter: ResolvedRecallFilter | undefined,
  asOf: Date | undefined,
): Promise<{ hits: ScoredChunk[]; path: IndexedBm25Path | IndexedAtPath } | undefined> {
  const current = await searchBm25Indexed(tx, tenantId, view, terms, collection, k, filter, asOf);
  if (current === undefined || asOf === undefined) return current;
  const path: IndexedAtPath = `${current.path}-at`;
  if (terms.length === 0) return { hits: [], path };
  const closed = await searchBm25(tx, tenantId, terms, collection, k, { asOf, closedOnly: true, filter });
  return { hits: mergeTopK(current.hits, closed.hits, k), path };
}
