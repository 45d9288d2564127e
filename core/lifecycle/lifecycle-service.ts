import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { LifecycleService } from "../../gen/memory/v1/lifecycle_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { clientIpKey } from "../auth/principal.js";
import { permissionDenied } from "../errors.js";
import { eraseMemory } from "./erase-memory.js";
import { eraseWorkspace } from "./erase-workspace.js";
import { importTenant } from "./import-tenant.js";
import type { LifecycleDeps } from "./lifecycle-deps.js";

const clientIp = (ctx: HandlerContext) => ctx.values.get(clientIpKey);

/**
 * Data lifecycle (docs/erasure.md, docs/export.md "Import"): erasure of a lineage or a workspace and
 * import of an export bundle. The tenant always comes from the caller's credentials.
 */
export function createLifecycleService(deps: LifecycleDeps): ServiceImpl<typeof LifecycleService> {
  return {
    eraseMemory: (req, ctx) => eraseMemory(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx) }),

    async eraseWorkspace(req, ctx) {
      const caller = tenantCaller(ctx);
      if (!caller.userId) throw permissionDenied("erasing a workspace needs the owner's session");
      const result = await eraseWorkspace(deps, {
        tenantId: caller.tenantId,
        confirmSlug: req.confirmSlug,
        actor: { userId: caller.userId },
      });
      deps.logger.info({ tenantId: result.tenantId, rows: result.rows }, "workspace erased");
      return {
        erased: true,
        tenantId: result.tenantId,
        rows: BigInt(result.rows),
        vectorTables: result.vectorTables,
      };
    },

    async importTenant(requests, ctx) {
      async function* chunks() {
        for await (const request of requests) yield request.chunk;
      }
      const result = await importTenant(deps, tenantCaller(ctx), { chunks: chunks(), ip: clientIp(ctx) });
      deps.logger.info({ tenantId: tenantCaller(ctx).tenantId, ...result }, "bundle imported");
      return { imported: true, ...result };
    },
  };
}
