import { type LimitsOverride, limitsFor, PLANS, type PlanName } from "../plans/plans.js";
import type { Sql } from "./database.js";
import { enqueueJob } from "./job-queue.js";

export const PURGE_AUDIT_LOG_TASK = "purge-audit-log";

/** How often the retention purge runs; a downgrade shortens retention from the next run on. */
export const AUDIT_PURGE_INTERVAL_MS = 6 * 60 * 60_000;

/** Rows per delete statement: short transactions, no long lock on a large log. */
export const AUDIT_PURGE_BATCH = 1000;

/** (Re)schedules the purge under one job key, like the maintenance sweep: never piles up. */
export function scheduleAuditPurge(sql: Sql, runAt?: Date): Promise<string> {
  return enqueueJob(
    sql,
    PURGE_AUDIT_LOG_TASK,
    {},
    { jobKey: PURGE_AUDIT_LOG_TASK, ...(runAt ? { runAt } : {}) },
  );
}

/**
 * Deletes audit entries older than each workspace's retention (spec "Audit-log retention": Privat
 * 30 days … Enterprise 1825 days), read from the plan table with the tenant's current plan and
 * overrides, in batches. Idempotent: a second run finds nothing more to delete. Entries without a
 * workspace (sign-ins before onboarding) keep the shortest retention, Privat's.
 */
export async function purgeAuditLog(
  sql: Sql,
  options: { batchSize?: number } = {},
): Promise<{ tenants: number; deleted: number }> {
  const batch = options.batchSize ?? AUDIT_PURGE_BATCH;
  const tenants = await sql<{ id: string; plan: PlanName; limits_override: LimitsOverride }[]>`
    select id, plan, limits_override from tenants`;
  let deleted = 0;
  const purge = async (tenantId: string | null, days: number) => {
    for (;;) {
      const rows = await sql`
        delete from audit_log where id in (
          select id from audit_log
          where tenant_id is not distinct from ${tenantId}
            and created_at < now() - make_interval(days => ${days})
          limit ${batch})
        returning id`;
      deleted += rows.length;
      if (rows.length < batch) return;
    }
  };
  for (const tenant of tenants) {
    await purge(tenant.id, limitsFor(tenant.plan, tenant.limits_override).auditRetentionDays);
  }
  await purge(null, PLANS.free.auditRetentionDays);
  return { tenants: tenants.length, deleted };
}
