import type { TransactionSql } from "../store/database.js";

export interface GraphCounts {
  readonly nodes: number;
  readonly edges: number;
  readonly edgeTypes: { relType: string; count: number }[];
}

/**
 * Counts of the tenant's current graph (spec "Graph schema result"): nodes are current memory
 * versions, edges are current edge rows — both directions of a link count, as both are stored and
 * listed — including the lineage edges, which never close.
 */
export async function readGraphSchema(tx: TransactionSql, tenantId: string): Promise<GraphCounts> {
  const [nodes] = await tx<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenantId} and valid_to is null`;
  const types = await tx<{ rel_type: string; n: number }[]>`
    select rel_type, count(*)::int as n from edges
    where tenant_id = ${tenantId} and valid_to is null
    group by rel_type order by rel_type`;
  return {
    nodes: nodes?.n ?? 0,
    edges: types.reduce((sum, t) => sum + t.n, 0),
    edgeTypes: types.map((t) => ({ relType: t.rel_type, count: t.n })),
  };
}
