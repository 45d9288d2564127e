import { notFound } from "../errors.js";
import type { MemoryKindName, MemoryTypeName } from "../memories/index.js";
import type { TransactionSql } from "../store/database.js";

/** A memory id as given, and the current version of its lineage that an edge attaches to. */
export interface ResolvedVersion {
  readonly requestedId: string;
  /** The current version's id (the requested id when that version is current). */
  readonly id: string;
  readonly lineageId: string;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
}

/**
 * Resolves each id to the current version of its lineage, so an edge given a superseded id lands on
 * the fact as it is now (docs/graph.md "Superseded ids"). An id that is unknown — or belongs to another
 * tenant, which the tenant filter and RLS make indistinguishable — is NOT_FOUND naming that id.
 */
export async function resolveCurrentVersions(
  tx: TransactionSql,
  tenantId: string,
  ids: readonly string[],
): Promise<ResolvedVersion[]> {
  const rows = await tx<
    {
      requested_id: string;
      id: string | null;
      lineage_id: string;
      kind: MemoryKindName;
      memory_type: MemoryTypeName;
    }[]
  >`
    select m.id as requested_id, c.id, m.lineage_id, coalesce(c.kind, m.kind) as kind,
           coalesce(c.memory_type, m.memory_type) as memory_type
    from memories m
    left join memories c on c.tenant_id = m.tenant_id and c.lineage_id = m.lineage_id and c.valid_to is null
    where m.tenant_id = ${tenantId} and m.id = any(${tx.array([...ids])}::uuid[])`;
  const byId = new Map(rows.map((r) => [r.requested_id, r]));
  return ids.map((requestedId) => {
    const row = byId.get(requestedId);
    // A lineage without a current version was removed (e.g. a replaced document): nothing to link.
    if (!row?.id) throw notFound(`memory ${requestedId}`);
    return {
      requestedId,
      id: row.id,
      lineageId: row.lineage_id,
      kind: row.kind,
      memoryType: row.memory_type,
    };
  });
}
