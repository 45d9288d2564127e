import type { TransactionSql } from "../store/database.js";

/**
 * Ends a version's valid time at `at` (spec "States and transitions": superseded, valid_to = now),
 * on the memory row and on its chunks, whose copied validity is what BM25 filters on. Nothing is
 * deleted; the version stays readable for point-in-time recall.
 */
export async function closeVersion(
  tx: TransactionSql,
  tenantId: string,
  memoryId: string,
  at: Date,
): Promise<void> {
  await tx`update memories set valid_to = ${at}, updated_at = ${at}
           where tenant_id = ${tenantId} and id = ${memoryId} and valid_to is null`;
  await tx`update chunks set valid_to = ${at}
           where tenant_id = ${tenantId} and memory_id = ${memoryId} and valid_to is null`;
}
