import type { TenantCaller } from "../auth/caller.js";
import { notFound } from "../errors.js";
import { countLineage, enqueuePurgeErased, eraseLineage } from "../memories/index.js";
import type { LifecycleDeps } from "./lifecycle-deps.js";
import { recordLifecycleAudit } from "./record-lifecycle-audit.js";

export interface EraseMemoryResult {
  /** False for a dry run: nothing was removed. */
  readonly erased: boolean;
  readonly versions: number;
  readonly chunks: number;
  readonly edges: number;
  /** The title of the lineage's newest version. */
  readonly title: string;
}

/**
 * DELETE /api/v1/memories/{id} (docs/erasure.md): erases the lineage `id` belongs to.
 *
 * 1. The lineage's version ids are read and their vectors deleted from every embedding space first,
 *    so a failure afterwards leaves the PostgreSQL rows and a retry finds the id again (a retry after
 *    success answers 404: the id names nothing any more).
 * 2. One tenant transaction removes the rows (core/memories/erase-lineage.ts), writes the audit entry
 *    (lineage id and counts, never content) and schedules the worker's purge.
 * 3. The vectors are deleted once more for every version the transaction removed: a version written
 *    between 1 and 2 (update_fact) loses its vectors too. The purge removes any vector a racing index
 *    job writes later.
 * Recall, list_recent, relations, stats, quota and exports read PostgreSQL (and LanceDB hits are
 * joined to live chunks), so they stop showing the lineage at the commit.
 *
 * A dry run (MCP service_erase_memory without confirm) passes the same scope (admin, by the method
 * table), tenant and not-found checks and answers the counts of step 2 with `erased: false`: nothing
 * is removed, locked or audited.
 */
export async function eraseMemory(
  deps: LifecycleDeps,
  caller: TenantCaller,
  input: { id: string; ip: string | undefined; dryRun?: boolean },
): Promise<EraseMemoryResult> {
  const { tenantId } = caller;
  const before = await deps.db.withTenant(
    tenantId,
    (tx) =>
      tx<{ id: string; title: string }[]>`
      select v.id, v.title from memories m join memories v on v.tenant_id = m.tenant_id and v.lineage_id = m.lineage_id
      where m.tenant_id = ${tenantId} and m.id = ${input.id}
      order by v.recorded_at`,
  );
  if (before.length === 0) throw notFound("memory");
  const title = before.at(-1)?.title ?? "";
  if (input.dryRun) {
    const ids = before.map((v) => v.id);
    const footprint = await deps.db.withTenant(tenantId, (tx) => countLineage(tx, tenantId, ids));
    return { erased: false, versions: ids.length, ...footprint, title };
  }
  const started = performance.now();
  await deps.vectors.delete(
    tenantId,
    before.map((v) => v.id),
  );
  const vectorsMs = performance.now() - started;
  const erased = await deps.db.withTenant(tenantId, async (tx) => {
    const result = await eraseLineage(tx, tenantId, input.id);
    if (!result) return undefined;
    await recordLifecycleAudit(tx, {
      tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "memory.erased",
      target: result.lineageId,
      ip: input.ip,
      details: {
        versions: result.versionIds.length,
        chunks: result.chunks,
        edges: result.edges,
        outboxEvents: result.outboxEvents,
        webhookDeliveries: result.webhookDeliveries,
        jobs: result.jobs,
        idempotencyKeys: result.idempotencyKeys,
      },
    });
    await enqueuePurgeErased(tx, tenantId, deps.purgeDelayMs);
    return result;
  });
  if (!erased) throw notFound("memory");
  const known = new Set(before.map((v) => v.id));
  const added = erased.versionIds.filter((id) => !known.has(id));
  if (added.length > 0) await deps.vectors.delete(tenantId, added);
  await deps.onChunksErased?.(tenantId);
  deps.logger.info(
    {
      tenantId,
      lineageId: erased.lineageId,
      versions: erased.versionIds.length,
      chunks: erased.chunks,
      vectorsMs: Math.round(vectorsMs),
      totalMs: Math.round(performance.now() - started),
    },
    "memory lineage erased",
  );
  return {
    erased: true,
    versions: erased.versionIds.length,
    chunks: erased.chunks,
    edges: erased.edges,
    title,
  };
}
