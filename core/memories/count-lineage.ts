import type { TransactionSql } from "../store/database.js";

/** What erasing a lineage's versions would remove, counted as eraseLineage counts it. */
export interface LineageFootprint {
  readonly chunks: number;
  readonly edges: number;
}

/**
 * Counts the chunks of `versionIds` and the edge rows with one of them at either end — the rows
 * eraseLineage deletes, with the same predicates — without locking or changing anything: the answer
 * of an erasure's dry run (a confirmation names what would go; it may differ from the erasure's own
 * counts if the lineage changes in between).
 */
export async function countLineage(
  tx: TransactionSql,
  tenantId: string,
  versionIds: readonly string[],
): Promise<LineageFootprint> {
  const ids = tx.array([...versionIds]);
  const [counts] = await tx<LineageFootprint[]>`
    select
      (select count(*)::int from chunks where tenant_id = ${tenantId} and memory_id = any(${ids}::uuid[])) as chunks,
      (select count(*)::int from edges
        where tenant_id = ${tenantId} and (from_id = any(${ids}::uuid[]) or to_id = any(${ids}::uuid[]))) as edges`;
  return counts ?? { chunks: 0, edges: 0 };
}
