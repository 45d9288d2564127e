import type { Logger } from "../../config/logger.js";
import type { TenantCaller } from "../auth/caller.js";
import { planGateError } from "../errors.js";
import { plansWith } from "../plans/plans.js";
import { upgradeUrl } from "../plans/upgrade-url.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { AUDIT_CSV_COLUMNS, auditCsvFields, csvRecord } from "./audit-csv.js";
import { selectAuditEntries } from "./audit-entries.js";
import { streamFromTransaction } from "./stream-from-transaction.js";

/** Rows fetched per cursor round trip. */
const BATCH_ROWS = 500;

/**
 * GET /api/audit/export: the workspace's audit log as CSV (docs/export.md), entries within the
 * plan's retention window, oldest first. Pro and higher (spec "Authentication" 7): other plans get
 * the plan gate (402) before anything is streamed, which is why this is a plain function that
 * checks first and only then returns the stream.
 */
export function exportAudit(
  deps: { db: Database; publicUrl: string; logger: Logger },
  caller: TenantCaller,
  input: { ip: string | undefined; signal: AbortSignal },
): AsyncGenerator<Uint8Array> {
  if (!caller.limits.features.has("audit_export")) {
    throw planGateError({
      feature: "audit_export",
      currentPlan: caller.plan,
      requiredPlans: plansWith("audit_export"),
      message: "the audit-log export needs the pro plan or higher",
      upgradeUrl: upgradeUrl(deps.publicUrl),
    });
  }
  const retentionDays = caller.limits.auditRetentionDays;
  return streamFromTransaction({
    method: "TenancyService/ExportAudit",
    logger: deps.logger,
    signal: input.signal,
    produce: async (write) => {
      // Committed before reading: reading the audit log is itself recorded, also when the
      // transfer breaks off. The file therefore ends with this export's own entry.
      await deps.db.withTenant(caller.tenantId, (tx) =>
        recordAudit(tx, {
          tenantId: caller.tenantId,
          actorUserId: caller.userId,
          actorTokenId: caller.tokenId,
          action: "audit.exported",
          ip: input.ip,
          details: { retentionDays },
        }),
      );
      await deps.db.withTenant(caller.tenantId, async (tx) => {
        await write(csvRecord(AUDIT_CSV_COLUMNS));
        for await (const rows of selectAuditEntries(tx, caller.tenantId, retentionDays).cursor(BATCH_ROWS)) {
          await write(rows.map((row) => csvRecord(auditCsvFields(row))).join(""));
        }
      });
    },
  });
}
