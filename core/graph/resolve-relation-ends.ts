import { lockTenantGraph, type RelationType } from "../memories/index.js";
import type { TransactionSql } from "../store/database.js";
import { relationError } from "./relation-error.js";
import { relationTypeViolation } from "./relation-violation.js";
import { type ResolvedVersion, resolveCurrentVersions } from "./resolve-current-versions.js";

/** What link and unlink are given: a triple of the caller's tenant. */
export interface RelationInput {
  readonly tenantId: string;
  readonly fromId: string;
  readonly toId: string;
  readonly relType: string;
}

export interface RelationEnds {
  readonly type: RelationType;
  readonly from: ResolvedVersion;
  readonly to: ResolvedVersion;
}

/**
 * The common first half of link and unlink: the type must be registered and not reserved, the tenant's
 * graph is locked shared (updates take it exclusively), and both ids resolve to the current versions
 * of their lineages — NOT_FOUND (the same for another tenant's ids) otherwise.
 */
export async function resolveRelationEnds(tx: TransactionSql, input: RelationInput): Promise<RelationEnds> {
  const checked = relationTypeViolation(input.relType, true);
  if ("violation" in checked) throw relationError(checked.violation);
  await lockTenantGraph(tx, input.tenantId, "shared");
  const [from, to] = await resolveCurrentVersions(tx, input.tenantId, [input.fromId, input.toId]);
  if (!from || !to) throw new Error("resolveCurrentVersions returned fewer versions than asked");
  return { type: checked.type, from, to };
}
