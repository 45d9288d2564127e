import type { TransactionSql } from "../store/database.js";
import { lockTenantGraph } from "./graph-lock.js";
import { relationError } from "./relation-error.js";
import { relationTypeViolation } from "./relation-violation.js";
import { resolveCurrentVersions } from "./resolve-current-versions.js";

export interface UnlinkInput {
  readonly tenantId: string;
  readonly fromId: string;
  readonly toId: string;
  readonly relType: string;
}

/**
 * service_unlink: removes the current edge and its inverse; false when there was none. Ids resolve
 * like link's, so unlink(a, b, T) undoes link(a, b, T) even after a was updated. Lineage edges are
 * reserved: history cannot be unlinked. Closed edges of superseded versions are history and stay.
 */
export async function unlinkMemories(tx: TransactionSql, input: UnlinkInput): Promise<boolean> {
  const checked = relationTypeViolation(input.relType, true);
  if ("violation" in checked) throw relationError(checked.violation);
  const { type } = checked;
  await lockTenantGraph(tx, input.tenantId, "shared");
  const [from, to] = await resolveCurrentVersions(tx, input.tenantId, [input.fromId, input.toId]);
  if (!from || !to) throw new Error("resolveCurrentVersions returned fewer versions than asked");
  const deleted = await tx`
    delete from edges
    where tenant_id = ${input.tenantId} and valid_to is null
      and ((from_id = ${from.id} and to_id = ${to.id} and rel_type = ${type.name})
        or (from_id = ${to.id} and to_id = ${from.id} and rel_type = ${type.inverse}))
    returning id`;
  return deleted.length > 0;
}
