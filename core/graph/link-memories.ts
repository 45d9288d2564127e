import { type EdgePair, writeEdgePair } from "../memories/index.js";
import type { TransactionSql } from "../store/database.js";
import { relationError } from "./relation-error.js";
import { endpointViolation } from "./relation-violation.js";
import { type RelationInput, resolveRelationEnds } from "./resolve-relation-ends.js";

/**
 * service_link: the edge and its inverse in the caller's transaction (spec "Relation"), checked
 * against the registry in this order: format, known type, not reserved, self-loop, both ids exist
 * (NOT_FOUND), self-loop again after resolving superseded ids, shape. Idempotent per triple.
 */
export async function linkMemories(tx: TransactionSql, input: RelationInput): Promise<EdgePair> {
  const { type, from, to } = await resolveRelationEnds(tx, input);
  const violation = endpointViolation(type, from, to);
  if (violation) throw relationError(violation);
  return writeEdgePair(tx, { tenantId: input.tenantId, fromId: from.id, toId: to.id, type });
}
