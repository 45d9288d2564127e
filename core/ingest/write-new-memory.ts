import type { JsonObject } from "@bufbuild/protobuf";
import type { Quota } from "../../gen/memory/v1/memory_pb.js";
import { finishIndexing } from "../memories/finish-indexing.js";
import { failureDetail, ingestFailed, providerFailure } from "../memories/indexing-errors.js";
import {
  insertMemoryRow,
  type MemoryKindName,
  type MemoryStatusName,
} from "../memories/insert-memory-row.js";
import type { MemoryDeps } from "../memories/memory-deps.js";
import { enqueueIndexMemory } from "../memories/memory-jobs.js";
import { ASYNC_THRESHOLD_CHARACTERS } from "../memories/memory-limits.js";
import type { MemoryTypeName } from "../memories/memory-type.js";
import { chunkContent, embedChunks, type PreparedChunk } from "../memories/prepare-memory-content.js";
import { countMemories, type QuotaCaller, quotaOf, reserveQuota } from "../memories/quota.js";
import { type WrittenVersion, writeMemoryVersion } from "../memories/write-memory-version.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import { ProviderError } from "../models/provider-error.js";
import type { Database, TransactionSql } from "../store/database.js";
import { createGroupCommit } from "../vectors/group-commit.js";
import { findIdenticalMemory, lockTitle } from "./find-identical-memory.js";
import { replaceDocumentsByTitle } from "./replace-documents-by-title.js";

export interface NewMemory {
  readonly caller: QuotaCaller;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
  readonly title: string;
  readonly content: string;
  readonly source?: string;
  readonly tags?: readonly string[];
  readonly metadata?: JsonObject;
  /** Replace same-title documents once indexed (upload_document, POST /api/documents). */
  readonly upsertByTitle: boolean;
  /** Return an existing byte-identical current version instead of writing (spec rule 1). */
  readonly dedupe: boolean;
  /** "queued" always goes through the worker (POST /api/documents); "auto" above 10,000 characters. */
  readonly mode: "auto" | "queued";
}

export interface NewMemoryOutcome {
  readonly memoryId: string;
  readonly status: MemoryStatusName;
  readonly chunksWritten: number;
  readonly unchanged: boolean;
  readonly replacedDocumentIds: readonly string[];
  readonly quota: Quota;
}

export interface WriteNewMemoryDeps extends MemoryDeps {
  /** Where the plan-gate error sends the user (spec: upgradeUrl). */
  readonly upgradeUrl: string;
}

type Decision =
  | {
      kind: "unchanged";
      memoryId: string;
      status: MemoryStatusName;
      chunksWritten: number;
      used: number;
    }
  | { kind: "queued"; memoryId: string; used: number | undefined }
  | { kind: "written"; written: WrittenVersion; vectors: Float32Array[]; used: number | undefined };

/**
 * The write path shared by store_memory, upload_document and POST /api/documents (DESIGN "Ingest"):
 * one transaction with the title lock, the identical-content check, the quota check and the inserts
 * (memory, chunks, outbox event — or, for large content, the row plus its job); then LanceDB and
 * status indexed; then the upsert-by-title swap. Embedding runs while that transaction locks, checks
 * and inserts (PostgreSQL computes the tsvectors on its own core meanwhile), and the transaction only
 * commits once every vector exists: an embedding failure rolls it back, so nothing half-written is
 * ever visible, and the pipeline costs little more than the embedder itself.
 */
export async function writeNewMemory(
  deps: WriteNewMemoryDeps,
  request: NewMemory,
): Promise<NewMemoryOutcome> {
  const { tenantId, limits } = request.caller;
  const queued = request.mode === "queued" || request.content.length > ASYNC_THRESHOLD_CHARACTERS;
  const chunks = queued ? undefined : chunkContent(request, deps.embedder);
  const embedding = chunks ? startEmbedding(deps.embedder, chunks) : undefined;

  let decision: Decision;
  try {
    decision = await deps.db.withTenant(tenantId, async (tx): Promise<Decision> => {
      await lockTitle(tx, tenantId, request.kind, request.title);
      if (request.dedupe) {
        const same = await findIdenticalMemory(tx, tenantId, request.kind, request.title, request.content);
        if (same) return { kind: "unchanged", ...same, used: await countMemories(tx, tenantId) };
      }
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
      const written = await writeMemoryVersion(tx, {
        ...rowInput(request),
        prepared: { chunks, space: deps.embedder.id },
        event: "memory.created",
      });
      return { kind: "written", written, vectors: await embedding, used };
    });
  } catch (error) {
    if (error instanceof EmbeddingFailure) throw await recordFailure(deps, request, error.cause);
    throw error;
  }

  if (decision.kind === "unchanged") {
    return {
      memoryId: decision.memoryId,
      status: decision.status,
      chunksWritten: decision.chunksWritten,
      unchanged: true,
      replacedDocumentIds: [],
      quota: quotaOf(decision.used, limits),
    };
  }
  // Plans without a limit skipped the count under the lock; it runs beside the LanceDB write.
  const used = decision.used !== undefined ? Promise.resolve(decision.used) : countOutside(deps, tenantId);
  if (decision.kind === "queued") {
    return {
      memoryId: decision.memoryId,
      status: "queued",
      chunksWritten: 0,
      unchanged: false,
      replacedDocumentIds: [],
      quota: quotaOf(await used, limits),
    };
  }
  const { written, vectors } = decision;
  const [count] = await Promise.all([
    used,
    finishIndexing(deps, tenantId, written, { chunks: chunks ?? [], vectors, space: deps.embedder.id }),
  ]);
  const replaced = request.upsertByTitle
    ? await replaceDocumentsByTitle(deps, tenantId, written.memoryId)
    : [];
  return {
    memoryId: written.memoryId,
    status: "indexed",
    chunksWritten: written.chunkIds.length,
    unchanged: false,
    replacedDocumentIds: replaced,
    quota: quotaOf(count - replaced.length, limits),
  };
}

/** Marks an embedding failure, so the transaction it aborted is told apart from a database error. */
class EmbeddingFailure extends Error {
  constructor(override readonly cause: unknown) {
    super("embedding failed");
  }
}

/**
 * Embeds on the next turn of the event loop, so the transaction's first statements are on their way
 * before an in-thread embedder takes the CPU. A failure becomes an EmbeddingFailure; a result nobody
 * waits for (identical content found) is dropped without an unhandled rejection.
 */
function startEmbedding(
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
 * The count for the quota figures of plans without a limit, after the caller's commit. Concurrent
 * writers of one tenant share one count (issue #23: a count per write grew with the tenant and was a
 * transaction per memory in a bulk load); it starts after each sharer's commit, so it includes every
 * sharer's memory, as a count of its own would, and others' concurrent writes, as that could too.
 */
function countOutside(deps: WriteNewMemoryDeps, tenantId: string): Promise<number> {
  let grouped = sharedCounts.get(deps.db);
  if (!grouped) {
    const db = deps.db;
    grouped = createGroupCommit<null, number>(
      async (tenant, callers) => {
        const n = await db.withTenant(tenant, (tx) => countMemories(tx, tenant));
        return callers.map(() => ({ ok: true, value: n }));
      },
      { lingerMs: 0, maxRows: 1_000 },
    );
    sharedCounts.set(db, grouped);
  }
  return grouped(tenantId, null, 1);
}

const sharedCounts = new WeakMap<Database, (tenantId: string, item: null, rows: number) => Promise<number>>();

function rowInput(request: NewMemory) {
  return {
    tenantId: request.caller.tenantId,
    kind: request.kind,
    memoryType: request.memoryType,
    title: request.title,
    content: request.content,
    ...(request.source !== undefined ? { source: request.source } : {}),
    ...(request.tags !== undefined ? { tags: request.tags } : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
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

/**
 * When embedding fails the memory is still recorded — with status failed and no chunks — because the
 * spec keeps a failed entry visible as failed (spec "States and transitions"). Returns the core error.
 */
async function recordFailure(deps: WriteNewMemoryDeps, request: NewMemory, cause: unknown): Promise<Error> {
  deps.logger.warn(
    { err: cause, tenantId: request.caller.tenantId },
    "embedding failed; memory recorded as failed",
  );
  const row = await deps.db.withTenant(request.caller.tenantId, (tx) =>
    insertMemoryRow(tx, rowInput(request), {
      status: "failed",
      chunksWritten: 0,
      embeddingSpace: deps.embedder.id,
      statusDetail: failureDetail(cause),
    }),
  );
  return cause instanceof ProviderError
    ? providerFailure(cause, row.memoryId)
    : ingestFailed(row.memoryId, cause);
}
