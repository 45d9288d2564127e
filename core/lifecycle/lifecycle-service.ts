import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { LifecycleService } from "../../gen/memory/v1/lifecycle_service_pb.js";
import { tenantCaller } from "../auth/caller.js";
import { clientIpKey } from "../auth/principal.js";
import { permissionDenied } from "../errors.js";
import type { Database } from "../store/database.js";
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
    eraseMemory: (req, ctx) =>
      eraseMemory(deps, tenantCaller(ctx), { id: req.id, ip: clientIp(ctx), dryRun: req.dryRun }),

    async eraseWorkspace(req, ctx) {
      const caller = tenantCaller(ctx);
      if (!caller.userId)
        throw permissionDenied("only the workspace owner, signed in, can erase the workspace");
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
      const caller = tenantCaller(ctx);
      await requireOwner(deps.db, caller.tenantId, caller.userId, "import into");
      async function* chunks() {
        for await (const request of requests) yield request.chunk;
      }
      const result = await importTenant(deps, caller, { chunks: chunks(), ip: clientIp(ctx) });
      deps.logger.info({ tenantId: caller.tenantId, ...result }, "bundle imported");
      return { imported: true, ...result };
    },
  };
}

/** Erasing and importing a workspace are the owner's, signed in (a member or a token may not). */
async function requireOwner(
  db: Database,
  tenantId: string,
  userId: string | undefined,
  what: string,
): Promise<void> {
  if (!userId) throw permissionDenied(`only the workspace owner, signed in, can ${what} the workspace`);
  const [member] = await db.sql<{ role: string }[]>`
    select role from memberships where tenant_id = ${tenantId} and user_id = ${userId}`;
  if (member?.role !== "owner") throw permissionDenied(`only the workspace owner can ${what} the workspace`);
}
