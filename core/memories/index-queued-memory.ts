import { ProviderError } from "../models/provider-error.js";
import type { Database } from "../store/database.js";
import { completeFromChunks } from "./complete-from-chunks.js";
import { failIndexing, markIndexed } from "./finish-indexing.js";
import { insertChunks } from "./insert-chunks.js";
import { insertOutboxEvent } from "./insert-outbox-event.js";
import type { MemoryDeps } from "./memory-deps.js";
import type { IndexMemoryPayload } from "./memory-jobs.js";
import { chunkContent, embedChunks } from "./prepare-memory-content.js";
import { replaceDocumentsByTitle } from "./replace-documents-by-title.js";
import { ignoreMaintenanceError, requestVectorMaintenance } from "./schedule-maintenance.js";

export type IndexOutcome = "indexed" | "failed" | "skipped";

interface QueuedMemory {
  readonly title: string;
  readonly content: string;
  readonly status: "queued" | "indexed" | "failed";
  readonly upsert_by_title: boolean;
  readonly chunk_rows: number;
}

/**
 * The worker's half of the asynchronous path (spec "Asynchronous indexing"): chunk and embed a queued
 * memory, then — as inline — PostgreSQL first (chunks + memory.created in one transaction), LanceDB,
 * status indexed, and the upsert-by-title swap. Safe to run again at any point: a retry after a crash
 * finds the chunks and only completes the vectors. A retryable provider failure is thrown so the
 * queue retries with backoff; the last attempt, or a failure retrying cannot fix, marks it failed.
 */
export async function indexQueuedMemory(
  deps: MemoryDeps,
  payload: IndexMemoryPayload,
  attempt: { readonly final: boolean },
): Promise<IndexOutcome> {
  const { tenantId, memoryId } = payload;
  const memory = await loadMemory(deps.db, tenantId, memoryId);
  if (!memory || memory.status === "failed") return "skipped";
  try {
    if (memory.status === "queued") {
      if (memory.chunk_rows > 0) await completeFromChunks(deps, tenantId, memoryId);
      else await indexFresh(deps, payload, memory);
    }
  } catch (error) {
    const hopeless = error instanceof ProviderError && !error.retryable;
    if (!attempt.final && !hopeless) throw error;
    await failIndexing(deps, tenantId, memoryId, error);
    return "failed";
  }
  if (memory.upsert_by_title) await replaceDocumentsByTitle(deps, tenantId, memoryId);
  return "indexed";
}

async function indexFresh(
  deps: MemoryDeps,
  payload: IndexMemoryPayload,
  memory: QueuedMemory,
): Promise<void> {
  const { tenantId, memoryId } = payload;
  const chunks = chunkContent(memory, deps.embedder);
  // As on the inline path: embedding runs while PostgreSQL inserts the chunks (and computes their
  // tsvectors), and the transaction commits only with every vector in hand.
  const embedding = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
    embedChunks(deps.embedder, chunks),
  );
  embedding.catch(() => undefined);
  const written = await deps.db.withTenant(tenantId, async (tx) => {
    const [row] = await tx<{ status: string; valid_from: Date; valid_to: Date | null; chunk_rows: number }[]>`
      select status, valid_from, valid_to,
             (select count(*)::int from chunks c where c.tenant_id = ${tenantId} and c.memory_id = m.id) as chunk_rows
      from memories m where tenant_id = ${tenantId} and id = ${memoryId} for update`;
    // Another run got here first (reconcile, a duplicate job): let completeFromChunks finish it.
    if (!row || row.status !== "queued" || row.chunk_rows > 0) return undefined;
    const chunkIds = await insertChunks(
      tx,
      { tenantId, memoryId, validFrom: row.valid_from, validTo: row.valid_to },
      chunks,
    );
    await tx`update memories set chunks_written = ${chunkIds.length}, embedding_space = ${deps.embedder.id},
                                 updated_at = now()
             where tenant_id = ${tenantId} and id = ${memoryId}`;
    await insertOutboxEvent(tx, tenantId, "memory.created", {
      documentId: memoryId,
      title: memory.title,
      chunksWritten: chunkIds.length,
    });
    return { chunkIds, validFrom: row.valid_from, validTo: row.valid_to, vectors: await embedding };
  });
  if (!written) {
    await completeFromChunks(deps, tenantId, memoryId);
    return;
  }
  await deps.hooks?.afterPostgresCommit?.(memoryId);
  const { version } = await deps.vectors.upsert(
    tenantId,
    deps.embedder.id,
    written.chunkIds.map((chunkId, i) => ({
      chunkId,
      memoryId,
      vector: written.vectors[i] ?? new Float32Array(0),
      validFrom: written.validFrom,
      validTo: written.validTo,
    })),
  );
  await deps.hooks?.afterVectorsStored?.(memoryId);
  await markIndexed(deps.db, tenantId, memoryId);
  await requestVectorMaintenance(
    deps.db.sql,
    tenantId,
    deps.embedder.id,
    version,
    written.chunkIds.length,
  ).catch(ignoreMaintenanceError);
}

async function loadMemory(
  db: Database,
  tenantId: string,
  memoryId: string,
): Promise<QueuedMemory | undefined> {
  return db.withTenant(tenantId, async (tx) => {
    const [row] = await tx<QueuedMemory[]>`
      select title, content, status, upsert_by_title,
             (select count(*)::int from chunks c where c.tenant_id = ${tenantId} and c.memory_id = m.id) as chunk_rows
      from memories m where tenant_id = ${tenantId} and id = ${memoryId}`;
    return row;
  });
}
