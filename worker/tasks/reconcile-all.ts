import type { Task } from "graphile-worker";
import { type MemoryDeps, runMaintenanceSweep } from "../../core/memories/index.js";

/** The periodic sweep over all tenants (core/ingest/schedule-maintenance.ts); reschedules itself. */
export function reconcileAllTask(deps: MemoryDeps): Task {
  return async () => {
    const tables = await deps.vectors.listTables();
    const counts = await runMaintenanceSweep(deps.db.sql, deps.embedder.id, tables);
    deps.logger.debug(counts, "maintenance sweep enqueued");
  };
}
