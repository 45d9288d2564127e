import type { Task } from "graphile-worker";
import type { TenantModels } from "../../core/keys/tenant-models.js";
import { type MemoryDeps, reembedTenant } from "../../core/memories/index.js";
import { tenantPayload } from "./tenant-payload.js";

/**
 * Migrates one tenant's vectors into its embedding space (core/memories/reembed-tenant.ts). A workspace
 * that chose a new embedder (BYOK) fills the new space while recall keeps the old one; progress goes
 * to tenant_model_selection (GET /api/keys/selection); when every version is in, the selection
 * switches recall and ingest over, and only then are old spaces dropped. Killed midway, the job
 * resumes where it stopped (versions already in the new space are skipped) and recall never noticed.
 */
export function reembedTenantTask(deps: MemoryDeps & { readonly models?: TenantModels | undefined }): Task {
  return async (payload) => {
    const { tenantId } = tenantPayload.parse(payload);
    const target = await deps.models?.reembedTargetFor(tenantId);
    if (target === undefined) {
      const embedder = deps.models ? await deps.models.embedderFor(tenantId) : deps.embedder;
      const report = await reembedTenant({ ...deps, embedder }, tenantId);
      if (report.migrated > 0 || report.droppedSpaces.length > 0) {
        deps.logger.info({ tenantId, space: embedder.id, ...report }, "tenant re-embedded");
      }
      return;
    }
    const sql = deps.db.sql;
    const [before] = await deps.db.withTenant(
      tenantId,
      (tx) => tx<{ n: number }[]>`
        select count(*)::int as n from memories
        where tenant_id = ${tenantId} and status <> 'failed' and embedding_space = ${target.id}`,
    );
    const already = before?.n ?? 0;
    const isDefault = target.id === deps.models?.defaultEmbedder.id;
    const report = await reembedTenant({ ...deps, embedder: target }, tenantId, {
      onProgress: async (migrated) => {
        await sql`
          update tenant_model_selection set reembed_done = least(reembed_total, ${already + migrated})
          where tenant_id = ${tenantId} and target_space = ${target.id}`;
      },
      beforeDrop: async () => {
        await sql`
          update tenant_model_selection
          set active_space = ${isDefault ? null : target.id},
              active_key_id = ${isDefault ? null : sql`embedding_key_id`},
              target_space = null, reembed_done = reembed_total, updated_at = now()
          where tenant_id = ${tenantId} and target_space = ${target.id}`;
      },
    });
    deps.logger.info({ tenantId, space: target.id, ...report }, "tenant moved to its new embedding space");
  };
}
