import type { Database } from "../store/database.js";
import { markIndexed } from "./finish-indexing.js";
import type { MemoryDeps } from "./memory-deps.js";
import { embedChunks, indexHeader } from "./prepare-memory-content.js";
import { ignoreMaintenanceError, requestVectorMaintenance } from "./schedule-maintenance.js";

/**
 * Finishes a memory whose chunks are in PostgreSQL but whose vectors may be missing — after a crash
 * between the two writes, a retried job, or an embedder change. PostgreSQL is the source of truth
 * (DESIGN "Storage"), so the vectors are recomputed from the stored chunks and the same index text the
 * write path used, then upserted by chunk id (never duplicated), then status indexed. Chunks whose
 * vector is in another embedding space are all re-embedded into the current one. Idempotent; returns
 * the number of vectors written.
 */
export async function completeFromChunks(
  deps: MemoryDeps,
  tenantId: string,
  memoryId: string,
): Promise<number> {
  const space = deps.embedder.id;
  const loaded = await loadChunks(deps.db, tenantId, memoryId, space);
  if (!loaded) return 0;
  const header = indexHeader(loaded.title, loaded.content);
  const vectors = await embedChunks(
    deps.embedder,
    loaded.chunks.map((c) => ({ indexText: header + c.content })),
  );
  const { version } = await deps.vectors.upsert(
    tenantId,
    space,
    loaded.chunks.map((c, i) => ({
      chunkId: c.id,
      memoryId,
      vector: vectors[i] ?? new Float32Array(0),
      validFrom: c.valid_from,
      validTo: c.valid_to,
    })),
    { mode: "merge" },
  );
  await deps.hooks?.afterVectorsStored?.(memoryId);
  if (loaded.spaceChanged) {
    await deps.db.withTenant(tenantId, async (tx) => {
      await tx`update memories set embedding_space = ${space}, updated_at = now()
               where tenant_id = ${tenantId} and id = ${memoryId}`;
    });
  }
  await markIndexed(deps.db, tenantId, memoryId);
  await requestVectorMaintenance(deps.db.sql, tenantId, space, version, loaded.chunks.length).catch(
    ignoreMaintenanceError,
  );
  return loaded.chunks.length;
}

interface LoadedChunks {
  readonly title: string;
  readonly content: string;
  readonly spaceChanged: boolean;
  readonly chunks: { id: string; content: string; valid_from: Date; valid_to: Date | null }[];
}

async function loadChunks(
  db: Database,
  tenantId: string,
  memoryId: string,
  space: string,
): Promise<LoadedChunks | undefined> {
  return db.withTenant(tenantId, async (tx) => {
    const [memory] = await tx<
      { title: string; content: string; status: string; embedding_space: string | null }[]
    >`
      select title, content, status, embedding_space from memories
      where tenant_id = ${tenantId} and id = ${memoryId}`;
    if (!memory || memory.status === "failed") return undefined;
    const spaceChanged = memory.embedding_space !== space;
    const chunks = await tx<{ id: string; content: string; valid_from: Date; valid_to: Date | null }[]>`
      select id, content, valid_from, valid_to from chunks
      where tenant_id = ${tenantId} and memory_id = ${memoryId} and (${spaceChanged} or not vector_stored)
      order by ordinal`;
    if (chunks.length === 0 && memory.status === "indexed") return undefined;
    return { title: memory.title, content: memory.content, spaceChanged, chunks };
  });
}
