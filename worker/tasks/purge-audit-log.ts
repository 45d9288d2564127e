import type { Task } from "graphile-worker";
import type { Logger } from "../../config/logger.js";
import type { Database } from "../../core/store/database.js";
import {
  AUDIT_PURGE_INTERVAL_MS,
  purgeAuditLog,
  scheduleAuditPurge,
} from "../../core/store/purge-audit-log.js";

/** The audit-log retention purge (core/store/purge-audit-log.ts); reschedules itself. */
export function purgeAuditLogTask(deps: { db: Database; logger: Logger }): Task {
  return async () => {
    const counts = await purgeAuditLog(deps.db.sql);
    if (counts.deleted > 0) deps.logger.info(counts, "audit entries past retention deleted");
    await scheduleAuditPurge(deps.db.sql, new Date(Date.now() + AUDIT_PURGE_INTERVAL_MS));
  };
}
