import { isIP } from "node:net";
import type { Sql, TransactionSql } from "../store/database.js";

export interface LifecycleAuditEntry {
  readonly tenantId: string;
  readonly actorUserId?: string | undefined;
  readonly actorTokenId?: string | undefined;
  readonly action: "memory.erased" | "tenant.imported";
  /** The lineage or workspace id: never content. */
  readonly target: string;
  readonly ip?: string | undefined;
  /** Counts and formats only. */
  readonly details: Record<string, string | number>;
}

/** One audit-log row in the caller's transaction (same shape as tenancy's audit entries). */
export async function recordLifecycleAudit(
  sql: Sql | TransactionSql,
  entry: LifecycleAuditEntry,
): Promise<void> {
  const ip = entry.ip && isIP(entry.ip) ? entry.ip : null;
  await sql`
    insert into audit_log (tenant_id, actor_user_id, actor_token_id, action, target, ip, details)
    values (${entry.tenantId}, ${entry.actorUserId ?? null}, ${entry.actorTokenId ?? null},
            ${entry.action}, ${entry.target}, ${ip}, ${sql.json(entry.details)})`;
}
