import type { Logger } from "../../config/logger.js";
import type { TenantCaller } from "../auth/caller.js";
import { BUNDLE_FORMAT, writeBundle } from "../bundle/index.js";
import { notFound } from "../errors.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { withTenantSnapshot } from "../store/with-tenant-snapshot.js";
import { selectAuditEntries } from "./audit-entries.js";
import { readMemoriesInBatches } from "./read-memories-in-batches.js";
import { streamFromTransaction } from "./stream-from-transaction.js";
import {
  auditRecord,
  edgeRecord,
  memoryRecord,
  selectEdges,
  selectTenant,
  tenantRecord,
} from "./tenant-export-records.js";

/** Edge and audit rows are small: rows fetched per cursor round trip. */
const BATCH_ROWS = 500;

/**
 * GET /api/tenant/export (GDPR, every plan): one JSON document with the workspace, every version of
 * every memory, every edge (current and closed) and the audit entries within the plan's retention
 * (docs/export.md), in the bundle layout of core/bundle. Streamed from one REPEATABLE READ snapshot, so memories, edges and audit agree
 * with each other even while the workspace is being written to, and read in batches, so a large
 * workspace never sits in memory. The caller's tenant only: the tenant comes from the session,
 * every query filters by it, and Row-Level Security backs that up.
 */
export function exportTenant(
  deps: { db: Database; logger: Logger },
  caller: TenantCaller,
  input: { ip: string | undefined; signal: AbortSignal },
): AsyncGenerator<Uint8Array> {
  const { tenantId } = caller;
  const retentionDays = caller.limits.auditRetentionDays;
  return streamFromTransaction({
    method: "TenancyService/ExportTenant",
    logger: deps.logger,
    signal: input.signal,
    produce: async (write) => {
      // Committed before the snapshot is taken: an export is recorded even when the transfer breaks
      // off, and the bundle's audit section ends with this export's own entry.
      await deps.db.withTenant(tenantId, (tx) =>
        recordAudit(tx, {
          tenantId,
          actorUserId: caller.userId,
          actorTokenId: caller.tokenId,
          action: "tenant.exported",
          target: tenantId,
          ip: input.ip,
          details: { format: BUNDLE_FORMAT },
        }),
      );
      await withTenantSnapshot(deps.db, tenantId, async (tx) => {
        const [tenant] = await selectTenant(tx, tenantId, retentionDays);
        if (!tenant) throw notFound("workspace");
        await writeBundle(
          write,
          {
            format: BUNDLE_FORMAT,
            exportedAt: tenant.exported_at.toISOString(),
            tenant: tenantRecord(tenant),
            auditRetentionDays: retentionDays,
            auditSince: tenant.audit_since.toISOString(),
          },
          {
            memories: { batches: readMemoriesInBatches(tx, tenantId), record: memoryRecord },
            edges: { batches: selectEdges(tx, tenantId).cursor(BATCH_ROWS), record: edgeRecord },
            audit: {
              batches: selectAuditEntries(tx, tenantId, retentionDays).cursor(BATCH_ROWS),
              record: auditRecord,
            },
          },
        );
      });
    },
  });
}
