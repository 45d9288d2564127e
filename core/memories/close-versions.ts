import type { TransactionSql } from "../store/database.js";

/**
 * Ends the valid time of memory versions and of their chunks (chunks carry a copy of the validity so
 * recall filters them without a join; the BM25 index drops chunks whose valid_to is set). Rows are
 * never deleted (DESIGN "Storage"). Versions already closed keep their valid_to. Returns the ids
 * closed now. LanceDB follows after the commit: `vectors.setValidTo(tenantId, ids, validTo)`.
 */
export async function closeVersions(
  tx: TransactionSql,
  tenantId: string,
  memoryIds: readonly string[],
  validTo: Date,
): Promise<string[]> {
  if (memoryIds.length === 0) return [];
  const closed = await tx<{ id: string }[]>`
    update memories set valid_to = greatest(${validTo}::timestamptz, valid_from), updated_at = now()
    where tenant_id = ${tenantId} and id = any(${tx.array([...memoryIds])}::uuid[]) and valid_to is null
    returning id`;
  const ids = closed.map((r) => r.id);
  if (ids.length > 0) {
    await tx`
      update chunks c set valid_to = m.valid_to
      from memories m
      where c.tenant_id = ${tenantId} and m.tenant_id = ${tenantId} and c.memory_id = m.id
        and m.id = any(${tx.array(ids)}::uuid[]) and c.valid_to is null`;
  }
  return ids;
}
