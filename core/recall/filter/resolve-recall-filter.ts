import type { Sql, TransactionSql } from "../../store/database.js";
import { idListFilter } from "../../vectors/vector-filters.js";
import { readCollectionStatistics } from "../read-collection-statistics.js";
import { memoryFilterSql, type SqlFragment } from "./memory-filter-sql.js";
import type { RecallFilter } from "./recall-filter.js";

/**
 * Up to this many matching memories the filter is resolved to their ids: BM25 scores only their
 * chunks and the vector search is pre-filtered by `memory_id IN (…)`. Above it the channels
 * over-fetch and drop what does not match (ADR 0220; measured with `npm run bench:recall`).
 */
export const DEFAULT_LISTED_MAX = 2000;
/** Up to this many listed memories BM25 scores only their chunks (index: as the allowed set; SQL: by id). */
export const DEFAULT_LOOKUP_MAX = 200;

/** A filter checked against the tenant's memories once per recall, as each channel applies it. */
export interface ResolvedRecallFilter {
  readonly filter: RecallFilter;
  /** The matching memory versions (current, or valid at as_of) when at most the listed maximum. */
  readonly memoryIds: readonly string[] | undefined;
  /**
   * Matching share of the tenant's current chunks (listed memories over the BM25 collection's chunk
   * count, at most 1); undefined when not listed. Picks each channel's way of applying the filter.
   */
  readonly share: number | undefined;
  /** BM25 scores only the chunks of at most this many listed memories (else a join). */
  readonly lookupMax: number;
  /** The condition on a memories row aliased `m`. */
  sql(tx: Sql | TransactionSql): SqlFragment;
  /** LanceDB pre-filter when the memory ids are listed. */
  readonly vectorWhere: string | undefined;
  /** Which of the given chunks belong to matching memories (validity is the hydrate step's). */
  keepChunks(tx: Sql | TransactionSql, chunkIds: readonly string[]): Promise<Set<string>>;
  /** Which of the given memories match. */
  keepMemories(tx: Sql | TransactionSql, memoryIds: readonly string[]): Promise<Set<string>>;
}

/**
 * The matching memory versions valid at asOf (current ones when unset), at most `limit`. At an instant
 * they are the current versions that had started by then — migration 0220's partial indexes, which
 * carry valid_from since migration 0310, list them without visiting the table — and the closed
 * versions valid then, found by valid_to (memories_closed_idx). One condition over both
 * (`valid_to is null or valid_to > asOf`) fetched every listed version's row to test it: a 2 % filter
 * at 100k memories took 57 ms p50 against 4 ms without as_of (bench:recall).
 */
function listMatchingVersions(
  tx: TransactionSql,
  tenantId: string,
  filter: RecallFilter,
  asOf: Date | undefined,
  limit: number,
) {
  const matching = memoryFilterSql(tx, filter);
  if (asOf === undefined)
    return tx<{ id: string }[]>`
      select m.id from memories m
      where m.tenant_id = ${tenantId} and m.valid_to is null and m.status <> 'failed' and ${matching}
      limit ${limit}`;
  return tx<{ id: string }[]>`
    (select m.id from memories m
     where m.tenant_id = ${tenantId} and m.valid_to is null and m.status <> 'failed'
       and m.valid_from <= ${asOf} and ${matching}
     limit ${limit})
    union all
    (select m.id from memories m
     where m.tenant_id = ${tenantId} and m.valid_to is not null and m.valid_to > ${asOf}
       and m.valid_from <= ${asOf} and m.status <> 'failed' and ${matching}
     limit ${limit})
    limit ${limit}`;
}

/** Resolves the filter for one recall: one LIMIT-bounded read over the indexes of migration 0220. */
export async function resolveRecallFilter(
  tx: TransactionSql,
  tenantId: string,
  filter: RecallFilter,
  options: { asOf?: Date | undefined; listedMax?: number; lookupMax?: number } = {},
): Promise<ResolvedRecallFilter> {
  const listedMax = options.listedMax ?? DEFAULT_LISTED_MAX;
  const [rows, collection] = await Promise.all([
    listMatchingVersions(tx, tenantId, filter, options.asOf, listedMax + 1),
    readCollectionStatistics(tx, tenantId),
  ]);
  const memoryIds = rows.length <= listedMax ? rows.map((r) => r.id) : undefined;
  return {
    filter,
    memoryIds,
    share:
      memoryIds === undefined
        ? undefined
        : Math.min(1, memoryIds.length / Math.max(1, collection.chunkCount)),
    lookupMax: options.lookupMax ?? DEFAULT_LOOKUP_MAX,
    sql: (q) => memoryFilterSql(q, filter),
    // An empty list matches nothing; LanceDB needs a predicate that says so.
    vectorWhere:
      memoryIds === undefined
        ? undefined
        : memoryIds.length === 0
          ? "false"
          : idListFilter("memory_id", memoryIds),
    async keepChunks(q, chunkIds) {
      if (chunkIds.length === 0) return new Set();
      const kept = await q<{ id: string }[]>`
        select c.id from chunks c join memories m on m.id = c.memory_id and m.tenant_id = c.tenant_id
        where c.tenant_id = ${tenantId} and c.id = any(${q.array([...chunkIds])}::uuid[])
          and ${memoryFilterSql(q, filter)}`;
      return new Set(kept.map((r) => r.id));
    },
    async keepMemories(q, ids) {
      if (ids.length === 0) return new Set();
      const kept = await q<{ id: string }[]>`
        select m.id from memories m
        where m.tenant_id = ${tenantId} and m.id = any(${q.array([...ids])}::uuid[])
          and ${memoryFilterSql(q, filter)}`;
      return new Set(kept.map((r) => r.id));
    },
  };
}
