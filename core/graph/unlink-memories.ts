import { deleteEdgePair } from "../memories/index.js";
import type { TransactionSql } from "../store/database.js";
import { type RelationInput, resolveRelationEnds } from "./resolve-relation-ends.js";

/**
 * service_unlink: removes the current edge and its inverse; false when there was none. Ids resolve
 * like link's, so unlink(a, b, T) undoes link(a, b, T) even after a was updated. Lineage edges are
 * reserved: history cannot be unlinked. Closed edges of superseded versions are history and stay.
 */
export async function unlinkMemories(tx: TransactionSql, input: RelationInput): Promise<boolean> {
  const { type, from, to } = await resolveRelationEnds(tx, input);
  return deleteEdgePair(tx, { tenantId: input.tenantId, fromId: from.id, toId: to.id, type });
}
