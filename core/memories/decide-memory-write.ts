import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { TransactionSql } from "../store/database.js";
import { findIdenticalMemory, lockTitle } from "./find-identical-memory.js";
import { insertMemoryRow, type MemoryRowInput, type MemoryStatusName } from "./insert-memory-row.js";
import type { MemoryDeps } from "./memory-deps.js";
import { enqueueIndexMemory } from "./memory-jobs.js";
import { type ContentSegment, embedChunks, type PreparedChunk } from "./prepare-memory-content.js";
import { countMemories, type QuotaCaller, reserveQuota } from "./quota.js";
import { type WrittenVersion, writeMemoryVersion } from "./write-memory-version.js";

export interface NewMemory
  extends Pick<
    MemoryRowInput,
    "kind" | "memoryType" | "title" | "content" | "source" | "tags" | "metadata" | "validFrom"
  > {
  readonly caller: QuotaCaller;
  /** Replace same-title documents once indexed (upload_document, POST /api/documents). */
  readonly upsertByTitle: boolean;
  /** Return an existing byte-identical current version instead of writing (spec rule 1). */
  readonly dedupe: boolean;
  /**
   * "queued" always goes through the worker (POST /api/documents); "auto" above 10,000 characters;
   * "inline" never (conversations: the worker's chunker knows no turns).
   */
  readonly mode: "auto" | "queued" | "inline";
  /** Chunk only at these boundaries (conversation turns, each with its own valid time). */
  readonly segments?: readonly ContentSegment[];
}

export interface WriteNewMemoryDeps extends MemoryDeps {
  /** Where the plan-gate error sends the user (spec: upgradeUrl). */
  readonly upgradeUrl: string;
}

/** A new memory on its way in: its chunks and their embedding (running) unless it is queued. */
export interface PendingWrite {
  readonly request: NewMemory;
  readonly chunks: readonly PreparedChunk[] | undefined;
  readonly embedding: Promise<Float32Array[]> | undefined;
}

/** What the write transaction decided and did. */
export type Decision =
  | {
      kind: "unchanged";
      memoryId: string;
      status: MemoryStatusName;
      chunksWritten: number;
      /** When the identical memory was recorded (a replayed key's own write is answered as written). */
      recordedAt: Date;
      used: number;
    }
  | { kind: "queued"; memoryId: string; used: number | undefined }
  | { kind: "written"; written: WrittenVersion; vectors: Float32Array[]; used: number | undefined }
  /** Written with its vectors already in LanceDB (a shared batch): nothing left to finish. */
  | { kind: "indexed"; written: WrittenVersion; used: number | undefined };

/** Marks an embedding failure, so the transaction it aborted is told apart from a database error. */
export class EmbeddingFailure extends Error {
  constructor(override readonly cause: unknown) {
    super("embedding failed");
  }
}

/**
 * Embeds on the next turn of the event loop, so the transaction's first statements are on their way
 * before an in-thread embedder takes the CPU. A failure becomes an EmbeddingFailure; a result nobody
 * waits for (identical content found) is dropped without an unhandled rejection.
 */
export function startEmbedding(
  embedder: EmbeddingProvider,
  chunks: readonly PreparedChunk[],
): Promise<Float32Array[]> {
  const embedding = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => embedChunks(embedder, chunks))
    .catch((error: unknown) => {
      throw new EmbeddingFailure(error);
    });
  embedding.catch(() => undefined);
  return embedding;
}

/**
 * One memory's own transaction (DESIGN "Ingest"): the title lock, the identical-content check, the
 * quota check and the inserts (memory, chunks, outbox event — or, for large content, the row plus its
 * job). It commits only once every vector exists: an embedding failure rolls it back (EmbeddingFailure).
 */
export function decideAlone(deps: WriteNewMemoryDeps, pending: PendingWrite): Promise<Decision> {
  const { request, chunks, embedding } = pending;
  const { tenantId } = request.caller;
  return deps.db.withTenant(tenantId, async (tx): Promise<Decision> => {
    // Sent together (one round trip): the connection runs the check only once the lock is held.
    const [, same] = await Promise.all([
      lockTitle(tx, tenantId, request.kind, request.title),
      request.dedupe
        ? findIdenticalMemory(tx, tenantId, request.kind, request.title, request.content)
        : undefined,
    ]);
    if (same) return { kind: "unchanged", ...same, used: await countMemories(tx, tenantId) };
    const replacing = request.upsertByTitle && (await hasCurrentDocument(tx, tenantId, request.title));
    const before = await reserveQuota(tx, request.caller, deps.upgradeUrl, replacing);
    const used = before === undefined ? undefined : before + 1;
    if (!chunks || !embedding) {
      const row = await insertMemoryRow(tx, rowInput(request), {
        status: "queued",
        chunksWritten: 0,
        embeddingSpace: null,
      });
      await enqueueIndexMemory(tx, { tenantId, memoryId: row.memoryId });
      return { kind: "queued", memoryId: row.memoryId, used };
    }
    const written = await writeMemoryVersion(tx, newVersion(deps, request, chunks));
    return { kind: "written", written, vectors: await embedding, used };
  });
}

/** The version a new memory writes: its row, its chunks in the embedder's space, memory.created. */
export function newVersion(
  deps: WriteNewMemoryDeps,
  request: NewMemory,
  chunks: readonly PreparedChunk[],
): Parameters<typeof writeMemoryVersion>[1] {
  return {
    ...rowInput(request),
    prepared: { chunks, space: deps.embedder.id },
    event: "memory.created",
  };
}

export function rowInput(request: NewMemory) {
  return {
    tenantId: request.caller.tenantId,
    kind: request.kind,
    memoryType: request.memoryType,
    title: request.title,
    content: request.content,
    ...(request.source !== undefined ? { source: request.source } : {}),
    ...(request.tags !== undefined ? { tags: request.tags } : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    ...(request.validFrom !== undefined ? { validFrom: request.validFrom } : {}),
    upsertByTitle: request.upsertByTitle,
  };
}

async function hasCurrentDocument(tx: TransactionSql, tenantId: string, title: string): Promise<boolean> {
  const rows = await tx`
    select 1 from memories
    where tenant_id = ${tenantId} and kind = 'document' and title = ${title} and valid_to is null
      and status <> 'failed'
    limit 1`;
  return rows.length > 0;
}
