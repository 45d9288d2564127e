import type { JsonObject } from "@bufbuild/protobuf";
import type { Quota } from "../../gen/memory/v1/memory_pb.js";
import { ProviderError } from "../models/provider-error.js";
import type { TransactionSql } from "../store/database.js";
import { findIdenticalMemory, lockTitle } from "./find-identical-memory.js";
import { finishIndexing } from "./finish-indexing.js";
import type { IngestDeps } from "./ingest-deps.js";
import { failureDetail, ingestFailed, providerFailure } from "./ingest-errors.js";
import { enqueueIndexMemory } from "./ingest-jobs.js";
import { ASYNC_THRESHOLD_CHARACTERS } from "./ingest-limits.js";
import { insertMemoryRow, type MemoryKindName, type MemoryStatusName } from "./insert-memory-row.js";
import type { MemoryTypeName } from "./memory-type.js";
import { type PreparedContent, prepareMemoryContent } from "./prepare-memory-content.js";
import { countMemories, type QuotaCaller, quotaOf, reserveQuota } from "./quota.js";
import { replaceDocumentsByTitle } from "./replace-documents-by-title.js";
import { writeMemoryVersion } from "./write-memory-version.js";

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

export interface WriteNewMemoryDeps extends IngestDeps {
  /** Where the plan-gate error sends the user (spec: upgradeUrl). */
  readonly upgradeUrl: string;
}

type Decision =
  | { kind: "unchanged"; memoryId: string; status: MemoryStatusName; chunksWritten: number; used: number }
  | {
      kind: "written";
      memoryId: string;
      used: number;
      written?: Awaited<ReturnType<typeof writeMemoryVersion>>;
    };

/**
 * The write path shared by store_memory, upload_document and POST /api/documents (DESIGN "Ingest"):
 * chunk and embed outside any transaction; then one transaction with the title lock, the identical-
 * content check, the quota check and the inserts (memory, chunks, outbox event — or, for large
 * content, the row plus its job); then LanceDB and status indexed; then the upsert-by-title swap.
 */
export async function writeNewMemory(
  deps: WriteNewMemoryDeps,
  request: NewMemory,
): Promise<NewMemoryOutcome> {
  const { tenantId } = request.caller;
  if (request.dedupe) {
    // Cheap look before embedding; repeated under the lock below, which is what makes it exact.
    const found = await deps.db.withTenant(tenantId, async (tx) => {
      const same = await findIdenticalMemory(tx, tenantId, request.kind, request.title, request.content);
      return same ? { same, used: await countMemories(tx, tenantId) } : undefined;
    });
    if (found) return unchangedOutcome(request, found.same, found.used);
  }
  const queued = request.mode === "queued" || request.content.length > ASYNC_THRESHOLD_CHARACTERS;
  const prepared = queued ? undefined : await prepareOrRecordFailure(deps, request);

  const decision = await deps.db.withTenant(tenantId, async (tx): Promise<Decision> => {
    await lockTitle(tx, tenantId, request.kind, request.title);
    if (request.dedupe) {
      const same = await findIdenticalMemory(tx, tenantId, request.kind, request.title, request.content);
      if (same) {
        return {
          kind: "unchanged",
          memoryId: same.memoryId,
          status: same.status,
          chunksWritten: same.chunksWritten,
          used: await countMemories(tx, tenantId),
        };
      }
    }
    const replacing = request.upsertByTitle && (await hasCurrentDocument(tx, tenantId, request.title));
    await reserveQuota(tx, request.caller, deps.upgradeUrl, replacing);
    if (prepared) {
      const written = await writeMemoryVersion(tx, {
        ...rowInput(request),
        prepared,
        event: "memory.created",
      });
      return {
        kind: "written",
        memoryId: written.memoryId,
        used: await countMemories(tx, tenantId),
        written,
      };
    }
    const row = await insertMemoryRow(tx, rowInput(request), {
      status: "queued",
      chunksWritten: 0,
      embeddingSpace: null,
    });
    await enqueueIndexMemory(tx, { tenantId, memoryId: row.memoryId });
    return { kind: "written", memoryId: row.memoryId, used: await countMemories(tx, tenantId) };
  });

  if (decision.kind === "unchanged") return unchangedOutcome(request, decision, decision.used);
  if (!prepared || !decision.written) {
    return {
      memoryId: decision.memoryId,
      status: "queued",
      chunksWritten: 0,
      unchanged: false,
      replacedDocumentIds: [],
      quota: quotaOf(decision.used, request.caller.limits),
    };
  }
  await finishIndexing(deps, tenantId, decision.written, prepared);
  const replaced = request.upsertByTitle
    ? await replaceDocumentsByTitle(deps, tenantId, decision.memoryId)
    : [];
  return {
    memoryId: decision.memoryId,
    status: "indexed",
    chunksWritten: prepared.chunks.length,
    unchanged: false,
    replacedDocumentIds: replaced,
    quota: quotaOf(decision.used - replaced.length, request.caller.limits),
  };
}

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

function unchangedOutcome(
  request: NewMemory,
  same: { memoryId: string; status: MemoryStatusName; chunksWritten: number },
  used: number,
): NewMemoryOutcome {
  return {
    memoryId: same.memoryId,
    status: same.status,
    chunksWritten: same.chunksWritten,
    unchanged: true,
    replacedDocumentIds: [],
    quota: quotaOf(used, request.caller.limits),
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
 * Chunks and embeds. When that fails, the memory is still recorded — with status failed and no chunks —
 * because the spec keeps a failed entry visible as failed (spec "States and transitions").
 */
async function prepareOrRecordFailure(
  deps: WriteNewMemoryDeps,
  request: NewMemory,
): Promise<PreparedContent> {
  try {
    return await prepareMemoryContent(deps.embedder, request);
  } catch (error) {
    deps.logger.warn(
      { err: error, tenantId: request.caller.tenantId },
      "embedding failed; memory recorded as failed",
    );
    const row = await deps.db.withTenant(request.caller.tenantId, (tx) =>
      insertMemoryRow(tx, rowInput(request), {
        status: "failed",
        chunksWritten: 0,
        embeddingSpace: deps.embedder.id,
        statusDetail: failureDetail(error),
      }),
    );
    throw error instanceof ProviderError
      ? providerFailure(error, row.memoryId)
      : ingestFailed(row.memoryId, error);
  }
}
