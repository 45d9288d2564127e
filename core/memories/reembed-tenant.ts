import { completeFromChunks } from "./complete-from-chunks.js";
import type { MemoryDeps } from "./memory-deps.js";

export interface ReembedReport {
  readonly migrated: number;
  readonly droppedSpaces: readonly string[];
}

const BATCH = 50;

/**
 * Moves a tenant into the current embedding space (issue: "a re-embed job migrates a tenant to a new
 * space"): every version that has chunks — closed ones too, so point-in-time recall keeps working — is
 * embedded again from its stored chunks into the current (tenant, space) table; then tables of spaces
 * no version uses any more are dropped. Spaces are never mixed: until a version is migrated, vector
 * search in the new space simply does not see it (BM25 still does). Resumable and idempotent.
 */
export interface ReembedHooks {
  /** After each batch, with the number migrated so far in this run. */
  onProgress?(migrated: number): Promise<void>;
  /**
   * Once every version is in the new space, before old spaces are dropped: where the workspace's
   * selection switches recall over (recall never searches a half-filled space or a dropped one).
   */
  beforeDrop?(): Promise<void>;
}

export async function reembedTenant(
  deps: MemoryDeps,
  tenantId: string,
  hooks: ReembedHooks = {},
): Promise<ReembedReport> {
  const space = deps.embedder.id;
  let migrated = 0;
  for (;;) {
    const batch = await deps.db.withTenant(
      tenantId,
      (tx) =>
        tx<{ id: string }[]>`
        select m.id from memories m
        where m.tenant_id = ${tenantId} and m.status <> 'failed'
          and m.embedding_space is distinct from ${space}
          and exists (select 1 from chunks c where c.tenant_id = m.tenant_id and c.memory_id = m.id)
        order by m.created_at limit ${BATCH}`,
    );
    if (batch.length === 0) break;
    for (const { id } of batch) {
      await completeFromChunks(deps, tenantId, id);
      migrated++;
    }
    await hooks.onProgress?.(migrated);
  }
  await hooks.beforeDrop?.();
  const inUse = new Set(
    (
      await deps.db.withTenant(
        tenantId,
        (tx) =>
          tx<{ embedding_space: string }[]>`
          select distinct embedding_space from memories
          where tenant_id = ${tenantId} and embedding_space is not null and status <> 'failed'`,
      )
    ).map((r) => r.embedding_space),
  );
  const droppedSpaces: string[] = [];
  for (const old of await deps.vectors.spaces(tenantId)) {
    if (old === space || inUse.has(old)) continue;
    await deps.vectors.dropSpace(tenantId, old);
    droppedSpaces.push(old);
  }
  return { migrated, droppedSpaces };
}
