import { isIP } from "node:net";
import type { Sql, TransactionSql } from "./database.js";

/** Audit actions of tenancy and billing (billing writes subscription.activated / subscription.cancelled). */
export type AuditAction =
  | "auth.sign_in"
  | "auth.sign_out"
  | "token.created"
  | "token.revoked"
  | "tenant.onboarded"
  | "tenant.created"
  | (string & {});

export interface AuditEntry {
  /** Unset for events of a user without a workspace yet (first sign-in). */
  readonly tenantId: string | undefined;
  readonly actorUserId?: string | undefined;
  readonly actorTokenId?: string | undefined;
  readonly action: AuditAction;
  /** What the action was about (a token id, a slug); never a secret. */
  readonly target?: string | undefined;
  readonly ip?: string | undefined;
  /** Small JSON details; never secrets (the audit log is exported as CSV). */
  readonly details?: Record<string, string | number | boolean | string[] | null>;
}

/**
 * Appends one audit-log row inside the caller's transaction, so the entry exists exactly when the
 * change it records committed. Inside `db.withTenant` the row is bound by RLS to that tenant; rows
 * without a tenant are written through the owner pool.
 */
export async function recordAudit(sql: Sql | TransactionSql, entry: AuditEntry): Promise<void> {
  // inet rejects anything that is not an address; a forwarded value we cannot parse is dropped.
  const ip = entry.ip && isIP(entry.ip) ? entry.ip : null;
  await sql`
    insert into audit_log (tenant_id, actor_user_id, actor_token_id, action, target, ip, details)
    values (${entry.tenantId ?? null}, ${entry.actorUserId ?? null}, ${entry.actorTokenId ?? null},
            ${entry.action}, ${entry.target ?? null}, ${ip}, ${sql.json(entry.details ?? {})})`;
}
