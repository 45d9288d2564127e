import { completeFromChunks } from "./complete-from-chunks.js";
import { findVectorDrift } from "./find-vector-drift.js";
import type { MemoryDeps } from "./memory-deps.js";
import { enqueueIndexMemory, INDEX_MEMORY_TASK } from "./memory-jobs.js";
import { replaceDocumentsByTitle } from "./replace-documents-by-title.js";

export interface ReconcileOptions {
  /** Leave memories younger than this alone: their write may still be running (default 2 minutes). */
  readonly minAgeMs?: number;
}

export interface ReconcileReport {
  /** Memories whose missing vectors were written from their stored chunks. */
  readonly completed: readonly string[];
  /** Queued memories without chunks and without a pending job, given a new indexing job. */
  readonly requeued: readonly string[];
  /** LanceDB rows without a live chunk (deleted, failed, or never committed), removed. */
  readonly orphanVectorsRemoved: number;
  /** Chunks whose vector was in LanceDB more than once, left with one row. */
  readonly duplicateVectorsMerged: number;
  /** Memories whose LanceDB validity disagreed with PostgreSQL, corrected. */
  readonly validityFixed: number;
}

const DEFAULT_MIN_AGE_MS = 120_000;

/**
 * Repairs drift between PostgreSQL (the truth) and LanceDB for one tenant, idempotently (DESIGN
 * "Storage": LanceDB is written after the commit and reconciled by the worker):
 * - a memory left queued by a crash between the two writes gets its vectors from its stored chunks
 *   and status indexed (and finishes its upsert-by-title swap);
 * - a queued memory with no chunks and no job (a lost job) is enqueued again;
 * - chunks marked vector_stored whose vector is missing are re-embedded;
 * - vectors without a chunk, or of a failed memory, are removed; a chunk's vector written twice is
 *   left once; validity is copied from PostgreSQL.
 */
export async function reconcileTenant(
  deps: MemoryDeps,
  tenantId: string,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const minAgeMs = options.minAgeMs ?? DEFAULT_MIN_AGE_MS;
  const completed: string[] = [];
  const requeued: string[] = [];

  const drift = await findVectorDrift(deps, tenantId);
  if (drift.orphanChunkIds.length > 0)
    await deps.vectors.deleteChunks(tenantId, drift.space, drift.orphanChunkIds);
  if (drift.duplicateChunkIds.length > 0)
    await deps.vectors.keepOneCopy(tenantId, drift.space, drift.duplicateChunkIds);
  for (const [validTo, memoryIds] of drift.validity) {
    await deps.vectors.setValidTo(tenantId, memoryIds, validTo === "" ? null : new Date(Number(validTo)));
  }
  if (drift.missingChunkIds.length > 0) {
    await deps.db.withTenant(tenantId, async (tx) => {
      await tx`update chunks set vector_stored = false
               where tenant_id = ${tenantId} and id = any(${tx.array([...drift.missingChunkIds])}::uuid[])`;
    });
  }

  const stuck = await deps.db.withTenant(tenantId, async (tx) => {
    return tx<{ id: string; status: string; upsert_by_title: boolean; has_chunks: boolean }[]>`
      select m.id, m.status, m.upsert_by_title,
             exists (select 1 from chunks c where c.tenant_id = m.tenant_id and c.memory_id = m.id) as has_chunks
      from memories m
      where m.tenant_id = ${tenantId} and m.status <> 'failed'
        and m.updated_at < now() - make_interval(secs => ${minAgeMs / 1000})
        and (m.status = 'queued'
          or exists (select 1 from chunks c where c.tenant_id = m.tenant_id and c.memory_id = m.id
                     and not c.vector_stored))
      order by m.created_at`;
  });
  for (const memory of stuck) {
    if (memory.has_chunks) {
      if ((await completeFromChunks(deps, tenantId, memory.id)) > 0 || memory.status === "queued") {
        completed.push(memory.id);
      }
      if (memory.upsert_by_title) await replaceDocumentsByTitle(deps, tenantId, memory.id);
    } else if (memory.status === "queued" && !(await hasPendingJob(deps, memory.id))) {
      await enqueueIndexMemory(deps.db.sql, { tenantId, memoryId: memory.id });
      requeued.push(memory.id);
    }
  }
  return {
    completed,
    requeued,
    orphanVectorsRemoved: drift.orphanChunkIds.length,
    duplicateVectorsMerged: drift.duplicateChunkIds.length,
    validityFixed: [...drift.validity.values()].reduce((n, ids) => n + ids.length, 0),
  };
}

/**
 * Whether an indexing job will still run for the memory. A job locked longer than any indexing takes
 * belongs to a worker that died (graphile-worker only frees such locks after 4 hours): it does not
 * count, and the new job enqueued instead runs at once (the old one, should it be alive, is harmless:
 * indexing is idempotent).
 */
async function hasPendingJob(deps: MemoryDeps, memoryId: string): Promise<boolean> {
  const rows = await deps.db.sql`
    select 1 from graphile_worker.jobs
    where key = ${`${INDEX_MEMORY_TASK}:${memoryId}`} and attempts < max_attempts
      and (locked_at is null or locked_at > now() - interval '15 minutes')`;
  return rows.length > 0;
}
