import type { Quota } from "../../gen/memory/v1/memory_pb.js";
import { writtenByReplayedKey } from "../idempotency/replay-scope.js";
import { coalesceEmbedCalls } from "../models/coalesce-embed-calls.js";
import type { Database } from "../store/database.js";
import { createGroupCommit } from "../vectors/group-commit.js";
import {
  type Decision,
  decideAlone,
  EmbeddingFailure,
  type NewMemory,
  type PendingWrite,
  rowInput,
  startEmbedding,
  type WriteNewMemoryDeps,
} from "./decide-memory-write.js";
import { canWriteTogether, decideTogether } from "./decide-writes-together.js";
import { finishIndexing } from "./finish-indexing.js";
import { failureDetail, indexingError } from "./indexing-errors.js";
import { insertMemoryRow, type MemoryStatusName } from "./insert-memory-row.js";
import { ASYNC_THRESHOLD_CHARACTERS } from "./memory-limits.js";
import { chunkContent } from "./prepare-memory-content.js";
import { countMemories, quotaOf } from "./quota.js";
import { replaceDocumentsByTitle } from "./replace-documents-by-title.js";

export type { NewMemory, WriteNewMemoryDeps } from "./decide-memory-write.js";

export interface NewMemoryOutcome {
  readonly memoryId: string;
  readonly status: MemoryStatusName;
  readonly chunksWritten: number;
  readonly unchanged: boolean;
  readonly replacedDocumentIds: readonly string[];
  readonly quota: Quota;
}

/**
 * The write path shared by store_memory, upload_document and POST /api/documents (DESIGN "Ingest"):
 * one transaction with the title lock, the identical-content check, the quota check and the inserts
 * (memory, chunks, outbox event — or, for large content, the row plus its job), shared by concurrent
 * writes of the tenant where it can be (decide-writes-together.ts, which also stores the vectors
 * before its commit); otherwise LanceDB and status indexed after it; then the upsert-by-title swap.
 * Embedding runs while that transaction locks, checks and inserts (PostgreSQL computes the tsvectors
 * on its own core meanwhile), and the transaction only commits once every vector exists: an
 * embedding failure rolls it back, so nothing half-written is ever visible, and the pipeline costs
 * little more than the embedder itself.
 */
export async function writeNewMemory(
  deps: WriteNewMemoryDeps,
  request: NewMemory,
): Promise<NewMemoryOutcome> {
  const { tenantId, limits } = request.caller;
  const queued =
    request.mode === "queued" ||
    (request.mode === "auto" && request.content.length > ASYNC_THRESHOLD_CHARACTERS);
  const chunks = queued ? undefined : chunkContent(request, deps.embedder);
  const embedding = chunks ? startEmbedding(deps.embedder, chunks) : undefined;

  const pending: PendingWrite = { request, chunks, embedding };
  let decision: Decision;
  try {
    decision = canWriteTogether(pending)
      ? await decideTogether(deps, pending)
      : await decideAlone(deps, pending);
  } catch (error) {
    if (error instanceof EmbeddingFailure) throw await recordFailure(deps, request, error.cause);
    throw error;
  }

  if (decision.kind === "unchanged") {
    return {
      memoryId: decision.memoryId,
      status: decision.status,
      chunksWritten: decision.chunksWritten,
      // Re-run of a keyed write whose first run died after committing: its own write, not a repeat.
      unchanged: !writtenByReplayedKey(decision.recordedAt),
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
  const { written } = decision;
  const [count] = await Promise.all([
    used,
    decision.kind === "written"
      ? finishIndexing(deps, tenantId, written, {
          chunks: chunks ?? [],
          vectors: decision.vectors,
          space: deps.embedder.id,
        })
      : undefined,
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

/**
 * A batch of new memories of one caller (StoreMemories, docs/ingest.md "Batches"): each goes the way
 * writeNewMemory takes, all at once, so they share the tenant's write transactions, the embedder's
 * lane and the LanceDB group commit as concurrent calls do, and their embeddings go out as one call
 * (a worker pool would count 100 calls as 100 jobs). Started in order, so of two with one title the
 * earlier is written first (the later then finds it: unchanged when byte-identical). Each keeps its
 * own outcome; the answer is one per request, in order.
 */
export function writeNewMemories(
  deps: WriteNewMemoryDeps,
  requests: readonly NewMemory[],
): Promise<PromiseSettledResult<NewMemoryOutcome>[]> {
  const batchDeps = { ...deps, embedder: coalesceEmbedCalls(deps.embedder) };
  return Promise.allSettled(requests.map((request) => writeNewMemory(batchDeps, request)));
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
  return indexingError(row.memoryId, cause);
}
