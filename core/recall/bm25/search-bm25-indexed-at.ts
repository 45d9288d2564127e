import type { TransactionSql } from "../../store/database.js";
import type { Bm25IndexView } from "./bm25-index-cache.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import { averageLength, type CollectionStatistics } from "./read-collection-statistics.js";
import type { ScoredChunk } from "./scored-chunk.js";
import { searchBm25 } from "./search-bm25.js";

/** How a point-in-time BM25 search was answered (FulltextResult.path). */
export const INDEXED_AT_PATH = "index-at";

/** The best k of two disjoint ranked lists: score descending, then chunk id ascending. */
export function mergeTopK(a: readonly ScoredChunk[], b: readonly ScoredChunk[], k: number): ScoredChunk[] {
  return [...a, ...b]
    .sort((x, y) => y.score - x.score || (x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0))
    .slice(0, k);
}

/**
 * Point-in-time BM25 (`as_of`) with the in-process index (issue 23): the chunks valid at T are the
 * current chunks already valid then — the index, restricted by valid_from — and the chunks closed
 * since T that were valid then, scored in PostgreSQL over the tenant's closed chunks only (few unless
 * the tenant rewrote much of itself since T). Both parts are scored with today's statistics, as the
 * SQL scorer scores point-in-time recall, and the two sets are disjoint, so the merged top k is the SQL
 * scorer's top k. Undefined when the shared index moved past this recall's snapshot (the caller asks
 * SQL for all of it).
 */
export async function searchBm25IndexedAt(
  tx: TransactionSql,
  tenantId: string,
  view: Bm25IndexView,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
  asOf: Date,
): Promise<{ hits: ScoredChunk[]; path: typeof INDEXED_AT_PATH } | undefined> {
  if (terms.length === 0) return { hits: [], path: INDEXED_AT_PATH };
  const current = view.search(terms, averageLength(collection), k, { validAt: asOf });
  if (current === undefined) return undefined;
  const closed = await searchBm25(tx, tenantId, terms, collection, k, { asOf, closedOnly: true });
  return { hits: mergeTopK(current, closed.hits, k), path: INDEXED_AT_PATH };
}
