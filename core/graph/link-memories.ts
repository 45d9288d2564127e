import type { TransactionSql } from "../store/database.js";
import { lockTenantGraph } from "./graph-lock.js";
import { relationError } from "./relation-error.js";
import { endpointViolation, relationTypeViolation } from "./relation-violation.js";
import { resolveCurrentVersions } from "./resolve-current-versions.js";
import { type EdgePair, writeEdgePair } from "./write-edge-pair.js";

export interface LinkInput {
  readonly tenantId: string;
  readonly fromId: string;
  readonly toId: string;
  readonly relType: string;
}

/**
 * service_link: the edge and its inverse in the caller's transaction (spec "Relation"), checked
 * against the registry in this order: format, known type, not reserved, self-loop, both ids exist
 * (NOT_FOUND), self-loop again after resolving superseded ids, shape. Idempotent per triple.
 */
export async function linkMemories(tx: TransactionSql, input: LinkInput): Promise<EdgePair> {
  const checked = relationTypeViolation(input.relType, true);
  if ("violation" in checked) throw relationError(checked.violation);
  const { type } = checked;
  await lockTenantGraph(tx, input.tenantId, "shared");
  const [from, to] = await resolveCurrentVersions(tx, input.tenantId, [input.fromId, input.toId]);
  if (!from || !to) throw new Error("resolveCurrentVersions returned fewer versions than asked");
  const violation = endpointViolation(type, from, to);
  if (violation) throw relationError(violation);
  return writeEdgePair(tx, { tenantId: input.tenantId, fromId: from.id, toId: to.id, type });
}
