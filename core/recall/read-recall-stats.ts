import type { TransactionSql } from "../store/database.js";

export interface RecallStats {
  readonly memories: number;
  readonly edges: number;
  readonly chunks: number;
  readonly queriesLast24h: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Spec "Statistics": counts of the current state (current versions that did not fail, current edges,
 * current chunks) and recall latency percentiles over the last 24 hours of recall_log.
 */
export async function readRecallStats(tx: TransactionSql, tenantId: string): Promise<RecallStats> {
  const [row] = await tx<
    {
      memories: string;
      edges: string;
      chunks: string;
      queries: string;
      p50: number | null;
      p99: number | null;
    }[]
  >`
    select
      (select count(*) from memories where tenant_id = ${tenantId} and valid_to is null and status <> 'failed') as memories,
      (select count(*) from edges where tenant_id = ${tenantId} and valid_to is null) as edges,
      (select count(*) from chunks where tenant_id = ${tenantId} and valid_to is null) as chunks,
      l.queries, l.p50, l.p99
    from (
      select count(*) as queries,
             percentile_disc(0.5) within group (order by latency_ms) as p50,
             percentile_disc(0.99) within group (order by latency_ms) as p99
      from recall_log where tenant_id = ${tenantId} and at > now() - interval '24 hours'
    ) l`;
  return {
    memories: Number(row?.memories ?? 0),
    edges: Number(row?.edges ?? 0),
    chunks: Number(row?.chunks ?? 0),
    queriesLast24h: Number(row?.queries ?? 0),
    p50Ms: Math.round(row?.p50 ?? 0),
    p99Ms: Math.round(row?.p99 ?? 0),
  };
}
