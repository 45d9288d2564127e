import type { Task } from "graphile-worker";
import { type MemoryDeps, purgeErased } from "../../core/memories/index.js";
import { tenantPayload } from "./tenant-payload.js";

/** Makes a tenant's erased data physically gone (core/memories/purge-erased.ts, docs/erasure.md). */
export function purgeErasedTask(deps: MemoryDeps): Task {
  return async (payload) => {
    const { tenantId } = tenantPayload.parse(payload);
    const report = await purgeErased(deps, tenantId);
    deps.logger.info({ tenantId, ...report }, "erased data purged");
  };
}
