import type { Logger } from "../../config/logger.js";
import type { Database } from "../store/database.js";
import { createGroupCommit } from "../vectors/group-commit.js";
import type { ChunkVectorRow, VectorStore } from "../vectors/vector-store.js";
import { failureDetail, indexingError } from "./indexing-errors.js";
import { markMemoryFailed } from "./mark-memory-failed.js";
import type { IndexingHooks } from "./memory-deps.js";
import type { PreparedContent } from "./prepare-memory-content.js";
import { ignoreMaintenanceError, requestVectorMaintenance } from "./schedule-maintenance.js";
import type { WrittenVersion } from "./write-memory-version.js";

export interface FinishIndexingDeps {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly logger: Logger;
  readonly hooks?: IndexingHooks;
}

/**
 * After the PostgreSQL commit: the vectors into LanceDB, then chunks.vector_stored and status indexed
 * (DESIGN "Storage": a chunk is indexed only when its vector is stored). On failure the memory is
 * marked failed and the core error (ingest_failed / provider_error) is thrown. A crash in between
 * leaves status queued with vector_stored false, which the reconcile job repairs.
 */
export async function finishIndexing(
  deps: FinishIndexingDeps,
  tenantId: string,
  written: WrittenVersion,
  prepared: PreparedContent,
): Promise<void> {
  try {
    await deps.hooks?.afterPostgresCommit?.(written.memoryId);
    const { version } = await deps.vectors.upsert(
      tenantId,
      prepared.space,
      vectorRowsOf(written, prepared.vectors, prepared.chunks),
    );
    await deps.hooks?.afterVectorsStored?.(written.memoryId);
    await Promise.all([
      markIndexed(deps.db, tenantId, written.memoryId),
      requestVectorMaintenance(deps.db.sql, tenantId, prepared.space, version, written.chunkIds.length).catch(
        ignoreMaintenanceError,
      ),
    ]);
  } catch (error) {
    await failIndexing(deps, tenantId, written.memoryId, error);
    throw indexingError(written.memoryId, error);
  }
}

/**
 * The LanceDB rows of a written version's chunks: their vectors, in ordinal order, current, valid from
 * the chunk's own time where it has one (a conversation turn), else the version's.
 */
export function vectorRowsOf(
  written: WrittenVersion,
  vectors: readonly Float32Array[],
  chunks?: readonly { readonly validFrom?: Date }[],
): ChunkVectorRow[] {
  return written.chunkIds.map((chunkId, i) => ({
    chunkId,
    memoryId: written.memoryId,
    vector: vectors[i] ?? new Float32Array(0),
    validFrom: chunks?.[i]?.validFrom ?? written.validFrom,
    validTo: null,
  }));
}

/**
 * Marks every chunk of a memory vector_stored and the memory indexed, if it is still queued. On every
 * write's critical path, so concurrent calls of one tenant share one statement and transaction (as
 * their vectors share one LanceDB commit): a bulk load pays one transaction per batch, not per memory.
 */
export function markIndexed(db: Database, tenantId: string, memoryId: string): Promise<boolean> {
  let grouped = markIndexedGroups.get(db);
  if (!grouped) {
    grouped = createGroupCommit<string, boolean>(
      async (tenant, memoryIds) => {
        const indexed = new Set(await markManyIndexed(db, tenant, memoryIds));
        return memoryIds.map((id) => ({ ok: true, value: indexed.has(id) }));
      },
      { lingerMs: 0, maxRows: 500 },
    );
    markIndexedGroups.set(db, grouped);
  }
  return grouped(tenantId, memoryId, 1);
}

const markIndexedGroups = new WeakMap<
  Database,
  (tenantId: string, memoryId: string, rows: number) => Promise<boolean>
>();

/** One statement (both data-modifying CTEs always run); returns the memories it moved to indexed. */
async function markManyIndexed(
  db: Database,
  tenantId: string,
  memoryIds: readonly string[],
): Promise<string[]> {
  const ids = [...new Set(memoryIds)];
  return db.withTenant(tenantId, async (tx) => {
    const rows = await tx<{ id: string }[]>`
      with stored as (
        -- By memory id (the lookup of chunks_memory_id_ordinal_key), not through the tenant's
        -- partial index of unvectored chunks, whose dead entries a bulk load piles up until vacuum.
        update chunks c set vector_stored = true
        from (select id from unnest(${tx.array(ids)}::uuid[]) as wanted(id) offset 0) wanted
        where c.memory_id = wanted.id and c.tenant_id = ${tenantId} and not c.vector_stored
        returning 1
      ), indexed as (
        update memories set status = 'indexed', status_detail = null, updated_at = now()
        where tenant_id = ${tenantId} and id = any(${tx.array(ids)}::uuid[]) and status = 'queued'
        returning id
      )
      select id, (select count(*) from stored)::int as stored from indexed`;
    return rows.map((r) => r.id);
  });
}

/** Marks the memory failed and removes any of its vectors already written (best effort, logged). */
export async function failIndexing(
  deps: FinishIndexingDeps,
  tenantId: string,
  memoryId: string,
  cause: unknown,
): Promise<void> {
  deps.logger.warn({ err: cause, tenantId, memoryId }, "indexing failed; memory marked failed");
  try {
    await markMemoryFailed(deps.db, tenantId, memoryId, failureDetail(cause));
  } catch (error) {
    // The row stays queued; the reconcile job finishes or fails it later.
    deps.logger.error({ err: error, tenantId, memoryId }, "could not mark memory failed");
  }
  await deps.vectors.delete(tenantId, [memoryId]).catch((error: unknown) => {
    deps.logger.warn({ err: error, tenantId, memoryId }, "could not remove vectors of a failed memory");
  });
}
