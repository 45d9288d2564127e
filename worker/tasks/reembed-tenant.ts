import type { Task } from "graphile-worker";
import { reembedTenant } from "../../core/ingest/reembed-tenant.js";
import type { MemoryDeps } from "../../core/memories/memory-deps.js";
import { tenantPayload } from "./tenant-payload.js";

/** Migrates one tenant's vectors into the current embedding space (core/ingest/reembed-tenant.ts). */
export function reembedTenantTask(deps: MemoryDeps): Task {
  return async (payload) => {
    const { tenantId } = tenantPayload.parse(payload);
    const report = await reembedTenant(deps, tenantId);
    if (report.migrated > 0 || report.droppedSpaces.length > 0) {
      deps.logger.info({ tenantId, space: deps.embedder.id, ...report }, "tenant re-embedded");
    }
  };
}
