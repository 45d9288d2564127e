import type { Task } from "graphile-worker";
import { type MemoryDeps, reconcileTenant } from "../../core/memories/index.js";
import { tenantPayload } from "./tenant-payload.js";

/** Repairs PostgreSQL/LanceDB drift of one tenant (core/memories/reconcile-tenant.ts). */
export function reconcileTenantTask(deps: MemoryDeps): Task {
  return async (payload) => {
    const { tenantId } = tenantPayload.parse(payload);
    const report = await reconcileTenant(deps, tenantId);
    const changed =
      report.completed.length + report.requeued.length + report.orphanVectorsRemoved + report.validityFixed;
    if (changed > 0) deps.logger.warn({ tenantId, ...report }, "reconcile repaired drift");
  };
}
