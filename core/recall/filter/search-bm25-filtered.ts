import type { TransactionSql } from "../../store/database.js";
import type { Bm25Term } from "../bm25/plan-bm25-terms.js";
import { averageLength, type CollectionStatistics } from "../bm25/read-collection-statistics.js";
import type { ScoredChunk } from "../bm25/top-k-search.js";
import type { ResolvedRecallFilter } from "./resolve-recall-filter.js";

/** How the filtered BM25 top k was found (FulltextResult.path). */
export type FilteredBm25Path = "filter-listed" | "filter-overfetch" | "filter-join";

/** From this share of matching chunks on, the unfiltered search over-fetches (about 2 / share). */
export const OVERFETCH_MIN_SHARE = 0.2;
/** Over-fetch rounds when the share is unknown: k × each factor, while no more than OVERFETCH_MAX. */
const UNKNOWN_SHARE_FACTORS = [4, 16] as const;
const OVERFETCH_MAX = 1000;

/** Over-fetch factors for a share: none below OVERFETCH_MIN_SHARE, where the join is cheaper. */
export function overfetchFactors(share: number | undefined): readonly number[] {
  if (share === undefined) return UNKNOWN_SHARE_FACTORS;
  if (share < OVERFETCH_MIN_SHARE) return [];
  const first = Math.ceil(2 / share);
  return [first, first * 4];
}

/**
 * Exact BM25 top k among the chunks of memories that match the filter (ADR 0220), applied before the
 * top k is cut, so k hits come back whenever k matching chunks contain a query term:
 *
 * - listed (at most filter.lookupMax matching memories): only their chunks' postings are scored, by
 *   primary-key lookups;
 * - over-fetch (a broad filter): the unfiltered top k·f, minus the chunks that do not match. The
 *   unfiltered order is exact, so once k of them match they are exactly the filtered top k;
 * - join (a selective filter with many matches, or over-fetch ran out): the query terms' posting
 *   lists scored against the matching chunks (a hash semi-join), in one statement.
 */
export async function searchBm25Filtered(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
  filter: ResolvedRecallFilter,
  unfiltered: (k: number) => Promise<readonly ScoredChunk[]>,
): Promise<{ hits: ScoredChunk[]; path: FilteredBm25Path }> {
  if (terms.length === 0) return { hits: [], path: "filter-listed" };
  const avgdl = averageLength(collection);
  const words = tx.array(terms.map((t) => t.term));
  const weights = tx.array(terms.map((t) => t.weight));
  if (filter.memoryIds !== undefined && filter.memoryIds.length <= filter.lookupMax) {
    if (filter.memoryIds.length === 0) return { hits: [], path: "filter-listed" };
    const rows = await tx<{ chunk_id: string; score: number }[]>`
      select p.chunk_id, sum(q.w * bm25_tf_part(p.tf, p.doc_len, ${avgdl})) as score
      from (select c.id from chunks c
            where c.tenant_id = ${tenantId} and c.valid_to is null
              and c.memory_id = any(${tx.array([...filter.memoryIds])}::uuid[])) a
      cross join unnest(${words}::text[], ${weights}::float8[]) q(term, w)
      join bm25_postings p on p.tenant_id = ${tenantId} and p.term = q.term and p.chunk_id = a.id
      group by p.chunk_id
      order by score desc, p.chunk_id
      limit ${k}`;
    return {
      hits: rows.map((r) => ({ chunkId: r.chunk_id, score: Number(r.score) })),
      path: "filter-listed",
    };
  }
  for (const factor of overfetchFactors(filter.share)) {
    const depth = k * factor;
    if (depth > OVERFETCH_MAX) break;
    const hits = await unfiltered(depth);
    const kept = await filter.keepChunks(
      tx,
      hits.map((h) => h.chunkId),
    );
    const matching = hits.filter((h) => kept.has(h.chunkId));
    // Enough matches, or the unfiltered search found fewer than asked: nothing further down exists.
    if (matching.length >= k || hits.length < depth)
      return { hits: matching.slice(0, k), path: "filter-overfetch" };
  }
  // bm25_postings holds current chunks only, so the matching chunks are the current ones; the
  // conditions are those of migration 0220's partial indexes, so the planner can use them.
  const rows = await tx<{ chunk_id: string; score: number }[]>`
    with allowed as materialized (
      select c.id from memories m join chunks c on c.memory_id = m.id and c.tenant_id = m.tenant_id
      where m.tenant_id = ${tenantId} and m.valid_to is null and m.status <> 'failed' and c.valid_to is null
        and ${filter.sql(tx)}
    )
    select p.chunk_id, sum(q.w * bm25_tf_part(p.tf, p.doc_len, ${avgdl})) as score
    from unnest(${words}::text[], ${weights}::float8[]) q(term, w)
    join bm25_postings p on p.tenant_id = ${tenantId} and p.term = q.term
    where p.chunk_id in (select id from allowed)
    group by p.chunk_id
    order by score desc, p.chunk_id
    limit ${k}`;
  return { hits: rows.map((r) => ({ chunkId: r.chunk_id, score: Number(r.score) })), path: "filter-join" };
}
