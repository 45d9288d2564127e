import type { TransactionSql } from "../../store/database.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import type { CollectionStatistics } from "../read-collection-statistics.js";
import { lengthNormalisation } from "./bm25-parameters.js";
import type { Bm25Term } from "./plan-bm25-terms.js";
import type { ScoredChunk } from "./scored-chunk.js";

/** How the SQL scorer chose its candidates (FulltextResult.path). */
export type SqlBm25Path = "sql" | "at" | "sql-filter-listed" | "sql-filter";

export interface SqlBm25Options {
  /** Point-in-time recall: the chunks valid then instead of the current ones. */
  readonly asOf?: Date | undefined;
  /**
   * With asOf: only the chunks valid then that are no longer current (closed since), the part of a
   * point-in-time recall the in-process index does not hold (search-bm25-from-index.ts).
   */
  readonly closedOnly?: boolean | undefined;
  /** Only chunks of memories matching it are ranked (ADR 0220), before the top k is cut. */
  readonly filter?: ResolvedRecallFilter | undefined;
  /** Only these chunks are scored: the time channel's, which the vector search found (ADR 0610). */
  readonly chunkIds?: readonly string[] | undefined;
}

/**
 * Exact BM25 top k scored inside PostgreSQL from the chunks' tsvectors (migration 0250): the chunks
 * holding a query term (`tsv @@`, which under row-level security PostgreSQL tests on the tenant's
 * chunks rather than through the GIN index: `@@` is not leakproof) are each scored with today's
 * statistics — the same weights, k1, b and ties (score, then chunk id) as the in-process index, which
 * answers recall without `as_of` whenever it is current for the recall's snapshot (ADR 0230). This
 * path answers the rest: point-in-time recall, a tenant whose index is still being built, a recall
 * whose snapshot the shared index has moved past, and BM25_INDEX=sql. Its cost grows with the number
 * of chunks holding the query's terms (docs/recall.md). A filter with a short list of memories scores
 * just their chunks; any other filter joins its condition into the candidates.
 */
export async function searchBm25(
  tx: TransactionSql,
  tenantId: string,
  terms: readonly Bm25Term[],
  collection: CollectionStatistics,
  k: number,
  options: SqlBm25Options = {},
): Promise<{ hits: ScoredChunk[]; path: SqlBm25Path }> {
  const { asOf, filter, closedOnly, chunkIds } = options;
  const listed =
    filter?.memoryIds !== undefined && filter.memoryIds.length <= filter.lookupMax
      ? filter.memoryIds
      : undefined;
  const path: SqlBm25Path =
    asOf !== undefined ? "at" : listed !== undefined ? "sql-filter-listed" : filter ? "sql-filter" : "sql";
  if (terms.length === 0 || listed?.length === 0 || chunkIds?.length === 0) return { hits: [], path };
  // tsquery literal: quoted lexemes, embedded quotes and backslashes doubled (PostgreSQL "tsvector" input).
  const query = terms.map((t) => `'${t.term.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`).join(" | ");
  const valid =
    asOf === undefined
      ? tx`c.valid_to is null`
      : closedOnly
        ? // chunks_closed_idx (migration 0300): the closed chunks of the tenant, by valid_to.
          tx`c.valid_to is not null and c.valid_to > ${asOf} and c.valid_from <= ${asOf}`
        : tx`c.valid_from <= ${asOf} and (c.valid_to is null or c.valid_to > ${asOf})`;
  const matching =
    listed !== undefined
      ? tx`c.memory_id = any(${tx.array([...listed])}::uuid[])`
      : filter !== undefined
        ? tx`exists (select 1 from memories m
                     where m.id = c.memory_id and m.tenant_id = c.tenant_id and m.status <> 'failed'
                       and ${filter.sql(tx)})`
        : tx`true`;
  const only = chunkIds === undefined ? tx`true` : tx`c.id = any(${tx.array([...chunkIds])}::uuid[])`;
  const { avgdl, b } = lengthNormalisation(collection);
  const rows = await tx<{ chunk_id: string; score: number }[]>`
    with q as (
      select * from unnest(${tx.array(terms.map((t) => t.term))}::text[],
                           ${tx.array(terms.map((t) => t.weight))}::float8[]) q(term, w)
    ), cand as (
      select c.id, c.tsv,
             (select coalesce(sum(coalesce(cardinality(a.positions), 1)), 0) from unnest(c.tsv) a)::int as dl
      from chunks c
      where c.tenant_id = ${tenantId} and c.tsv @@ ${query}::tsquery and ${valid} and ${matching} and ${only}
    )
    select cand.id as chunk_id,
           sum(q.w * bm25_tf_part(coalesce(cardinality(u.positions), 1), cand.dl, ${avgdl}, ${b}::float8)) as score
    from cand cross join lateral unnest(cand.tsv) u join q on q.term = u.lexeme
    group by cand.id
    order by score desc, cand.id
    limit ${k}`;
  return { hits: rows.map((r) => ({ chunkId: r.chunk_id, score: Number(r.score) })), path };
}
