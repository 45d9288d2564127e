import type { Database } from "../store/database.js";

/**
 * Spec "States and transitions": a failed ingest stays stored with status failed — never deleted, never
 * reported as success. Only a version still queued is marked, so a late failure cannot undo a success.
 */
export async function markMemoryFailed(
  db: Database,
  tenantId: string,
  memoryId: string,
  detail: string,
): Promise<void> {
  await db.withTenant(tenantId, async (tx) => {
    await tx`
      update memories set status = 'failed', status_detail = ${detail}, updated_at = now()
      where tenant_id = ${tenantId} and id = ${memoryId} and status = 'queued'`;
  });
}
