import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { coreError, notFound } from "../errors.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import { ProviderError } from "../models/provider-error.js";
import type { Database, TransactionSql } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";
import { carryOverEdges } from "./carry-over-edges.js";
import { closeVersions } from "./close-versions.js";
import { finishIndexing } from "./finish-indexing.js";
import { lockTenantGraph } from "./graph-lock.js";
import { providerFailure } from "./indexing-errors.js";
import type { IndexingHooks } from "./memory-deps.js";
import { checkMemorySize, checkUploadSize, requireContent } from "./memory-limits.js";
import { type PreparedContent, prepareMemoryContent } from "./prepare-memory-content.js";
import { findRelationType, type MemoryKindName, type MemoryTypeName, SUPERSEDES } from "./relation-types.js";
import { writeEdgePair } from "./write-edge-pair.js";
import { writeMemoryVersion } from "./write-memory-version.js";

export interface NewVersionDeps {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
  readonly hooks?: IndexingHooks;
}

export interface NewVersionInput {
  readonly tenantId: string;
  readonly targetId: string;
  readonly newTitle: string;
  readonly newContent: string;
  readonly updateReason?: string;
}

export interface NewVersionResult {
  readonly oldMemoryId: string;
  readonly newMemoryId: string;
  readonly supersedesEdge: string;
  readonly chunksWritten: number;
  readonly carriedOverLinks: number;
  readonly validFrom: Date;
}

interface TargetRow {
  id: string;
  lineage_id: string;
  kind: MemoryKindName;
  memory_type: MemoryTypeName;
  source: string | null;
  tags: string[];
  metadata: JsonObject;
  valid_to: Date | null;
}

/**
 * The target of an update, checked to be the current version. A superseded target is
 * FAILED_PRECONDITION (HTTP 409) naming the current version, so the caller can re-read it and
 * decide again; an unknown id or another tenant's is NOT_FOUND.
 */
async function currentTarget(tx: TransactionSql, tenantId: string, targetId: string, lock: boolean) {
  const [row] = lock
    ? await tx<TargetRow[]>`
        select id, lineage_id, kind, memory_type, source, tags, metadata, valid_to from memories
        where tenant_id = ${tenantId} and id = ${targetId} for no key update`
    : await tx<TargetRow[]>`
        select id, lineage_id, kind, memory_type, source, tags, metadata, valid_to from memories
        where tenant_id = ${tenantId} and id = ${targetId}`;
  if (!row) throw notFound(`memory ${targetId}`);
  if (row.valid_to === null) return row;
  const [current] = await tx<{ id: string }[]>`
    select id from memories where tenant_id = ${tenantId} and lineage_id = ${row.lineage_id} and valid_to is null`;
  if (!current) throw notFound(`a current version of memory ${targetId}`);
  throw coreError(
    Code.FailedPrecondition,
    ErrorReason.SUPERSEDED,
    `memory ${targetId} was superseded; the current version is ${current.id}: read it and update that id instead`,
    { field: "target_id", metadata: { current_memory_id: current.id } },
  );
}

/**
 * A new version of a fact (spec "States and transitions", Memory version; service_update_fact): in one
 * transaction close the target (valid_to = t), insert the new version of the same lineage
 * (valid_from = t), carry the target's current edges over, write SUPERSEDES new → old with its
 * inverse, and the memory.updated outbox event. Chunking and embedding run before the transaction, the
 * vector writes after it (docs/ingest.md). Updates of one tenant's graph are serialised
 * (lockTenantGraph): of two concurrent updates of one fact the second finds the target superseded and
 * gets the error naming the winner. The content is checked to be present and within the size limit of
 * the target's kind.
 */
export async function writeNewVersion(
  deps: NewVersionDeps,
  input: NewVersionInput,
): Promise<NewVersionResult> {
  const { db } = deps;
  const { tenantId } = input;
  requireContent(input.newContent);
  // Fail fast (before embedding) on a missing or superseded target; re-checked under the lock below.
  const target = await db.withTenant(tenantId, (tx) => currentTarget(tx, tenantId, input.targetId, false));
  // The same size limits as creating that kind of memory (docs/ingest.md).
  if (target.kind === "entry") checkMemorySize(input.newContent);
  else checkUploadSize(input.newContent);

  let prepared: PreparedContent;
  try {
    prepared = await prepareMemoryContent(deps.embedder, {
      title: input.newTitle,
      content: input.newContent,
    });
  } catch (error) {
    if (error instanceof ProviderError) throw providerFailure(error, undefined);
    throw error;
  }

  const supersedes = findRelationType(SUPERSEDES);
  if (!supersedes) throw new Error("SUPERSEDES missing from the relation registry");
  const committed = await db.withTenant(tenantId, async (tx) => {
    await lockTenantGraph(tx, tenantId, "exclusive");
    const old = await currentTarget(tx, tenantId, input.targetId, true);
    // One instant ends the old version and starts the new one: no gap, no overlap. Strictly after
    // the old start even if clocks were coarse, so the valid_to >= valid_from check always holds.
    const [clock] = await tx<{ at: Date }[]>`
      select greatest(clock_timestamp(), valid_from + interval '1 microsecond') as at
      from memories where id = ${old.id}`;
    if (!clock) throw new Error("target vanished under its lock");
    const at = clock.at;
    // Ingest's closer (docs/ingest.md): memory row and chunks, so BM25 statistics follow; the
    // trigger of migration 0041 closes the version's edges at the same instant.
    await closeVersions(tx, tenantId, [old.id], at);
    const written = await writeMemoryVersion(tx, {
      tenantId,
      lineageId: old.lineage_id,
      kind: old.kind,
      memoryType: old.memory_type,
      title: input.newTitle,
      content: input.newContent,
      ...(old.source !== null ? { source: old.source } : {}),
      tags: old.tags,
      metadata: old.metadata,
      ...(input.updateReason !== undefined ? { updateReason: input.updateReason } : {}),
      validFrom: at,
      prepared,
      event: "memory.updated",
      extraEventData: {
        oldMemoryId: old.id,
        lineageId: old.lineage_id,
        ...(input.updateReason !== undefined ? { updateReason: input.updateReason } : {}),
      },
    });
    const carriedOverLinks = await carryOverEdges(tx, {
      tenantId,
      oldId: old.id,
      newId: written.memoryId,
      at,
    });
    const pair = await writeEdgePair(tx, {
      tenantId,
      fromId: written.memoryId,
      toId: old.id,
      type: supersedes,
      validFrom: at,
    });
    return { old, written, pair, carriedOverLinks, at };
  });

  // After commit (docs/ingest.md): first stop the old version's vectors from matching current
  // recall, then index the new one. A failure of the first is repaired by reconcile; a failure of
  // the second marks the new version failed and is reported (nothing claims success it lacks).
  await deps.vectors.setValidTo(tenantId, [committed.old.id], committed.at).catch((error: unknown) => {
    deps.logger.warn(
      { err: error, tenantId, memoryId: committed.old.id },
      "could not close the superseded version's vectors; reconcile will",
    );
  });
  await finishIndexing(
    { db, vectors: deps.vectors, logger: deps.logger, ...(deps.hooks ? { hooks: deps.hooks } : {}) },
    tenantId,
    committed.written,
    prepared,
  );
  return {
    oldMemoryId: committed.old.id,
    newMemoryId: committed.written.memoryId,
    supersedesEdge: committed.pair.edgeId,
    chunksWritten: committed.written.chunkIds.length,
    carriedOverLinks: committed.carriedOverLinks,
    validFrom: committed.at,
  };
}
