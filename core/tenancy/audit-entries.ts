import type postgres from "postgres";
import type { TransactionSql } from "../store/database.js";

/** One audit-log row as both exports read it. */
export interface AuditEntryRow {
  /** bigint identity, as text: JSON numbers lose precision past 2^53. */
  readonly id: string;
  readonly created_at: Date;
  readonly action: string;
  readonly actor_user_id: string | null;
  readonly actor_token_id: string | null;
  readonly target: string | null;
  readonly ip: string | null;
  readonly details: Record<string, unknown>;
}

/**
 * The tenant's audit entries within its plan's retention window (spec "Limits": audit-log retention
 * Privat 30 days … Enterprise 1825 days; plans.ts `auditRetentionDays`), oldest first. Rows older
 * than the window are not shown even while nothing has purged them yet. Call `.cursor(n)` on the
 * result to read it in batches. The window ends at the transaction's `now()`, the same instant the
 * tenant export names as `exportedAt`.
 */
export function selectAuditEntries(
  tx: TransactionSql,
  tenantId: string,
  retentionDays: number,
): postgres.PendingQuery<AuditEntryRow[]> {
  // Oldest first, like a log file; (created_at, id) keeps entries of one instant in insert order.
  return tx<AuditEntryRow[]>`
    select id::text as id, created_at, action, actor_user_id, actor_token_id, target,
           host(ip) as ip, details
    from audit_log
    where tenant_id = ${tenantId}
      and created_at >= now() - make_interval(days => ${retentionDays})
    order by created_at, id`;
}
