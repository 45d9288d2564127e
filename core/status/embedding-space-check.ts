import type { Database } from "../store/database.js";
import type { ComponentCheck } from "./status-service.js";

/**
 * The caller's workspace in GET /api/health (and MCP service_health): component "embedding_space"
 * with the space recall searches and, while a switch of embedder re-embeds the workspace, the job's
 * progress — `"<active> (recall); re-embedding into <target>: <done>/<total>"`. Informational: neither
 * a workspace that is moving nor a slow read of this row makes the service degraded. One statement for the caller's own row (the tenant id is
 * the authenticated caller's), so a health call stays as cheap as the database ping.
 */
export function embeddingSpaceCheck(db: Database, tenantId: string, defaultSpace: string): ComponentCheck {
  return {
    name: "embedding_space",
    optional: true,
    informational: true,
    async check() {
      const [row] = await db.sql<
        { active_space: string | null; target_space: string | null; done: number; total: number }[]
      >`
        select active_space, target_space, reembed_done as done, reembed_total as total
        from tenant_model_selection where tenant_id = ${tenantId}`;
      const active = row?.active_space ?? defaultSpace;
      if (!row || row.target_space === null) return { status: "ok", detail: `${active} (recall)` };
      return {
        status: "ok",
        detail: `${active} (recall); re-embedding into ${row.target_space}: ${row.done}/${row.total}`,
      };
    },
  };
}
