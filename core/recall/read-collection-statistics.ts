import type { TransactionSql } from "../store/database.js";

/** A tenant's BM25 collection figures over its current chunks. */
export interface CollectionStatistics {
  readonly chunkCount: number;
  readonly totalLength: number;
  /** Delta rows of the collection not yet compacted: a cheap gauge of how many are pending overall. */
  readonly pendingDeltas: number;
}

export function averageLength(stats: CollectionStatistics): number {
  return stats.chunkCount > 0 ? Math.max(stats.totalLength / stats.chunkCount, 1) : 1;
}

/** Compacted figures plus pending deltas (migration 0030). */
export async function readCollectionStatistics(
  tx: TransactionSql,
  tenantId: string,
): Promise<CollectionStatistics> {
  const [row] = await tx<{ chunk_count: string; total_len: string; pending: string }[]>`
    select coalesce(c.chunk_count, 0) + coalesce(d.n, 0) as chunk_count,
           coalesce(c.total_len, 0) + coalesce(d.len, 0) as total_len,
           coalesce(d.rows, 0) as pending
    from (select 1) one
    left join bm25_collection c on c.tenant_id = ${tenantId}
    left join lateral (
      select sum(df_delta) as n, sum(len_delta) as len, count(*) as rows
      from bm25_stats_delta where tenant_id = ${tenantId} and term = ''
    ) d on true`;
  return {
    chunkCount: Number(row?.chunk_count ?? 0),
    totalLength: Number(row?.total_len ?? 0),
    pendingDeltas: Number(row?.pending ?? 0),
  };
}
