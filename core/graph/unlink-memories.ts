import type { TransactionSql } from "../store/database.js";
import { type RelationInput, resolveRelationEnds } from "./resolve-relation-ends.js";

/**
 * service_unlink: removes the current edge and its inverse; false when there was none. Ids resolve
 * like link's, so unlink(a, b, T) undoes link(a, b, T) even after a was updated. Lineage edges are
 * reserved: history cannot be unlinked. Closed edges of superseded versions are history and stay.
 */
export async function unlinkMemories(tx: TransactionSql, input: RelationInput): Promise<boolean> {
  const { type, from, to } = await resolveRelationEnds(tx, input);
  const deleted = await tx`
    delete from edges
    where tenant_id = ${input.tenantId} and valid_to is null
      and ((from_id = ${from.id} and to_id = ${to.id} and rel_type = ${type.name})
        or (from_id = ${to.id} and to_id = ${from.id} and rel_type = ${type.inverse}))
    returning id`;
  return deleted.length > 0;
}
