import { notFound } from "../errors.js";
import type { TransactionSql } from "../store/database.js";

export interface Relations {
  readonly outgoing: { relType: string; to: string; edgeId: string }[];
  readonly incoming: { relType: string; from: string; edgeId: string }[];
}

/**
 * service_list_relations: the current edges of exactly this version (spec "Relation"), oldest first.
 * Every link is stored in both directions, so a link a OWNS b shows on a as outgoing OWNS → b and
 * incoming OWNED_BY ← b. A superseded version's own edges were closed when it was superseded, so it
 * lists only its lineage (SUPERSEDED_BY → the newer version), which is where to look next.
 */
export async function listRelations(
  tx: TransactionSql,
  tenantId: string,
  memoryId: string,
): Promise<Relations> {
  const [exists] = await tx`select 1 from memories where tenant_id = ${tenantId} and id = ${memoryId}`;
  if (!exists) throw notFound(`memory ${memoryId}`);
  const rows = await tx<{ id: string; from_id: string; to_id: string; rel_type: string }[]>`
    select id, from_id, to_id, rel_type from edges
    where tenant_id = ${tenantId} and valid_to is null and (from_id = ${memoryId} or to_id = ${memoryId})
    order by valid_from, rel_type, id`;
  return {
    outgoing: rows
      .filter((r) => r.from_id === memoryId)
      .map((r) => ({ relType: r.rel_type, to: r.to_id, edgeId: r.id })),
    incoming: rows
      .filter((r) => r.to_id === memoryId)
      .map((r) => ({ relType: r.rel_type, from: r.from_id, edgeId: r.id })),
  };
}
