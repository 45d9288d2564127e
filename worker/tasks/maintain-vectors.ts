import type { Task } from "graphile-worker";
import type { MemoryDeps } from "../../core/memories/index.js";
import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import type { VectorMaintainer } from "../vector-maintenance/maintenance-process.js";
import { maintainPayload } from "./tenant-payload.js";

/**
 * Compacts one (tenant, space) vector table, prunes its old versions, builds its ANN index above the
 * threshold — in the maintenance child process when one is given (ADR 0560), else in this process.
 */
export function maintainVectorsTask(deps: MemoryDeps, maintainer?: VectorMaintainer): Task {
  return async (payload) => {
    const { tenantId, space, duringWrites } = maintainPayload.parse(payload);
    const options = { duringWrites: duringWrites === true };
    const result =
      maintainer === undefined
        ? await maintainVectorTable(deps.vectors, tenantId, space, options)
        : // This process's rewrites of the table (reconcile's keepOneCopy) still wait for the upkeep.
          await deps.vectors.exclusive(tenantId, space, () => maintainer.maintain(tenantId, space, options));
    if (result.compacted || result.indexCreated || result.indexRebuilt || result.versionsRemoved > 0)
      deps.logger.info({ tenantId, space, ...result }, "vector table maintained");
  };
}
