import { readModelSelection } from "../keys/tenant-models.js";
import type { Database } from "../store/database.js";
import type { ComponentCheck } from "./status-service.js";

/**
 * The caller's workspace in GET /api/health (and MCP service_health): component "embedding_space"
 * with the space recall searches and, while a switch of embedder re-embeds the workspace, the job's
 * progress — `"<active> (recall); re-embedding into <target>: <done>/<total>"`. Optional: a workspace
 * that is moving is not a degraded service.
 */
export function embeddingSpaceCheck(db: Database, tenantId: string, defaultSpace: string): ComponentCheck {
  return {
    name: "embedding_space",
    optional: true,
    async check() {
      const row = await db.withTenant(tenantId, (tx) => readModelSelection(tx, tenantId));
      const active = row?.activeSpace ?? defaultSpace;
      if (row?.targetSpace == null) return { status: "ok", detail: `${active} (recall)` };
      return {
        status: "ok",
        detail: `${active} (recall); re-embedding into ${row.targetSpace}: ${row.reembedDone}/${row.reembedTotal}`,
      };
    },
  };
}
