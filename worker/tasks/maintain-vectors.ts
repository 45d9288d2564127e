import type { Task } from "graphile-worker";
import type { MemoryDeps } from "../../core/memories/index.js";
import { maintainVectorTable } from "../../core/vectors/maintain-vector-table.js";
import { maintainPayload } from "./tenant-payload.js";

/** Compacts one (tenant, space) vector table, prunes its old versions, builds its ANN index above the threshold. */
export function maintainVectorsTask(deps: MemoryDeps): Task {
  return async (payload) => {
    const { tenantId, space, duringWrites } = maintainPayload.parse(payload);
    const result = await maintainVectorTable(deps.vectors, tenantId, space, {
      duringWrites: duringWrites === true,
    });
    if (result.compacted || result.indexCreated || result.indexRebuilt || result.versionsRemoved > 0)
      deps.logger.info({ tenantId, space, ...result }, "vector table maintained");
  };
}
