import { Code } from "@connectrpc/connect";
import type postgres from "postgres";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { createHeapGrowthBound } from "../../lib/heap-growth-bound.js";
import type { TenantCaller } from "../auth/caller.js";
import type { PlanName } from "../auth/principal.js";
import { coreError, invalidArgument, planGateError } from "../errors.js";
import { contentSha256 } from "../memories/content-hash.js";
import { MAINTAIN_VECTORS_TASK } from "../memories/memory-jobs.js";
import { chunkContent, embedChunks, type PreparedChunk } from "../memories/prepare-memory-content.js";
import { countMemories, lockTenantQuota } from "../memories/quota.js";
import { PLANS } from "../plans/plans.js";
import type { TransactionSql } from "../store/database.js";
import { enqueueJob } from "../store/job-queue.js";
import { VectorWriteUnverifiedError } from "../vectors/write-verified.js";
import { type BundleEdge, type BundleMemory, bundleEdge, bundleMemory } from "./bundle-records.js";
import { importedId } from "./imported-id.js";
import type { LifecycleDeps } from "./lifecycle-deps.js";
import { readBundle } from "./read-bundle.js";
import { recordLifecycleAudit } from "./record-lifecycle-audit.js";

/** The bundle formats this version reads (core/tenancy/export-tenant.ts writes the first). */
export const IMPORTABLE_FORMATS = ["memory-service-export/v1"] as const;

/** A batch is written once it reaches any of these: bounds memory whatever the bundle's size. */
const BATCH_MEMORIES = 256;
const BATCH_CHUNKS = 256;
const BATCH_CONTENT_CHARS = 4 * 1024 * 1024;
const BATCH_EDGES = 1000;

export interface ImportResult {
  readonly memories: number;
  readonly edges: number;
  readonly chunks: number;
  readonly format: string;
  readonly sourceTenantId: string;
}

interface PendingMemory {
  readonly memory: BundleMemory;
  readonly chunks: readonly PreparedChunk[];
}

/**
 * POST /api/tenant/import (docs/export.md "Import", ADR 0200): reads an export bundle as it streams
 * in and restores every memory version (valid, recorded, created and updated times, lineage,
 * status) and every edge (both directions, validity, inverse) into the caller's workspace, which must
 * be empty. Ids are derived from the bundle's (imported-id.ts). Chunks are cut again and embedded with
 * this workspace's embedder as the batches go by.
 *
 * All or nothing: every row is written in one PostgreSQL transaction, which commits only after the
 * last line was read and the counts matched; vectors are appended to LanceDB batch by batch inside it,
 * and if anything fails the tenant's vector tables are dropped again (the workspace was empty, so they
 * hold only this import's rows). Memory stays bounded: one batch of records and their vectors.
 */
export async function importTenant(
  deps: LifecycleDeps,
  caller: ImportTarget,
  input: { readonly chunks: AsyncIterable<Uint8Array>; readonly ip: string | undefined },
): Promise<ImportResult> {
  const { tenantId } = caller;
  // Set once the workspace was found empty under the lock: from then on its vector tables hold only
  // this import's rows. Before that (a workspace with memories, a second import that waited for the
  // first), they hold the workspace's own vectors, which a refusal must not touch.
  let claimed = false;
  try {
    // The appends go through a connection of their own (vector-store.ts forBulkWrite): a long run of
    // them kept the search connection's metadata cache full of this import's manifests.
    const vectors = await deps.vectors.forBulkWrite();
    try {
      // Created before the transaction takes the quota lock: creating takes a pool connection, which
      // writers queued behind that lock may hold (decide-writes-together.ts says how that deadlocked).
      await vectors.ensureTable(tenantId, deps.embedder.id);
      return await guarded(() =>
        deps.db.withTenant(tenantId, async (tx) => {
          // Quota-checked writers of this tenant (plans with a memory limit) wait until the import is
          // done; a second import waits and then finds the workspace not empty.
          await lockTenantQuota(tx, tenantId);
          await requireEmpty(tx, tenantId);
          claimed = true;
          const space = deps.embedder.id;
          const vectorsBefore = await vectors.count(tenantId, space);
          const result = await writeBundle({ ...deps, vectors }, tx, tenantId, input.chunks);
          // The batches' vectors are not read back one by one (a filtered scan of the growing table
          // per batch: quadratic time, and LanceDB's per-scan state grew the process); one count
          // checks them all before the rows commit.
          const vectorsAfter = await vectors.count(tenantId, space);
          if (vectorsAfter - vectorsBefore !== result.chunks) {
            throw new VectorWriteUnverifiedError(
              space,
              result.chunks - (vectorsAfter - vectorsBefore),
              result.chunks,
            );
          }
          await checkQuota(tx, caller, deps.upgradeUrl);
          // Every batch appended a fragment: the worker compacts the table (and builds its ANN index
          // above the threshold) right after the commit instead of at the next sweep.
          await enqueueJob(
            tx,
            MAINTAIN_VECTORS_TASK,
            { tenantId, space: deps.embedder.id },
            { jobKey: `${MAINTAIN_VECTORS_TASK}:${tenantId}:${deps.embedder.id}` },
          );
          await recordLifecycleAudit(tx, {
            tenantId,
            actorUserId: caller.userId,
            actorTokenId: caller.tokenId,
            action: "tenant.imported",
            target: tenantId,
            ip: input.ip,
            details: {
              format: result.format,
              sourceTenantId: result.sourceTenantId,
              memories: result.memories,
              edges: result.edges,
              chunks: result.chunks,
            },
          });
          return result;
        }),
      );
    } finally {
      vectors.close();
    }
  } catch (error) {
    if (!claimed) throw error;
    // Nothing of the import may stay: the rows rolled back; the vectors go with their tables.
    for (const space of await deps.vectors.spaces(tenantId).catch(() => [])) {
      await deps.vectors.dropSpace(tenantId, space).catch((dropError: unknown) => {
        deps.logger.error(
          { err: dropError, tenantId, space },
          "could not drop the vectors of a failed import",
        );
      });
    }
    throw error;
  }
}

/** The workspace imported into: the owner's session (checked by the caller), or the operator CLI. */
export type ImportTarget = Pick<TenantCaller, "tenantId" | "plan" | "limits" | "userId" | "tokenId">;

async function requireEmpty(tx: TransactionSql, tenantId: string): Promise<void> {
  const [row] = await tx<{ used: boolean }[]>`
    select exists (select 1 from memories where tenant_id = ${tenantId})
        or exists (select 1 from edges where tenant_id = ${tenantId}) as used`;
  if (row?.used) {
    throw coreError(
      Code.FailedPrecondition,
      ErrorReason.CONFLICT,
      "the workspace is not empty: import restores a bundle only into an empty workspace",
    );
  }
}

async function writeBundle(
  deps: LifecycleDeps,
  tx: TransactionSql,
  tenantId: string,
  stream: AsyncIterable<Uint8Array>,
): Promise<ImportResult> {
  let format: string | undefined;
  let sourceTenantId = "";
  let pending: PendingMemory[] = [];
  let pendingChunks = 0;
  let pendingChars = 0;
  let edgeBatch: BundleEdge[] = [];
  const seen = { memories: 0, edges: 0, audit: 0 };
  let chunksWritten = 0;
  let counts: Record<string, unknown> | undefined;
  // Each written batch is garbage V8 would otherwise let pile up (lib/heap-growth-bound.ts, ADR 0201).
  const boundHeap = createHeapGrowthBound({ collectFirst: true });

  const flushMemories = async () => {
    if (pending.length === 0) return;
    chunksWritten += await writeMemories(deps, tx, tenantId, pending);
    pending = [];
    pendingChunks = 0;
    pendingChars = 0;
    boundHeap();
  };
  const flushEdges = async () => {
    if (edgeBatch.length === 0) return;
    await writeEdges(tx, tenantId, edgeBatch);
    edgeBatch = [];
    boundHeap();
  };

  for await (const item of readBundle(stream)) {
    switch (item.kind) {
      case "head": {
        const given = item.head.format;
        if (typeof given !== "string" || !(IMPORTABLE_FORMATS as readonly string[]).includes(given)) {
          throw invalidArgument(
            "format",
            `unknown bundle format ${JSON.stringify(given ?? null)}; this server reads ${IMPORTABLE_FORMATS.join(", ")}`,
          );
        }
        format = given;
        const tenant = item.head.tenant as { id?: unknown } | undefined;
        sourceTenantId = typeof tenant?.id === "string" ? tenant.id : "";
        break;
      }
      case "memories": {
        const memory = bundleMemory(item.record, seen.memories);
        seen.memories++;
        const chunks = memory.status === "failed" ? [] : chunkContent(memory, deps.embedder);
        pending.push({ memory, chunks });
        pendingChunks += chunks.length;
        pendingChars += memory.content.length;
        if (
          pending.length >= BATCH_MEMORIES ||
          pendingChunks >= BATCH_CHUNKS ||
          pendingChars >= BATCH_CONTENT_CHARS
        )
          await flushMemories();
        break;
      }
      case "edges": {
        await flushMemories();
        edgeBatch.push(bundleEdge(item.record, seen.edges));
        seen.edges++;
        if (edgeBatch.length >= BATCH_EDGES) await flushEdges();
        break;
      }
      case "audit":
        // The source's audit log stays with the bundle: this instance's log records the import itself.
        seen.audit++;
        break;
      case "counts":
        counts = item.counts;
        break;
    }
  }
  await flushMemories();
  await flushEdges();
  if (!format) throw invalidArgument("bundle", "not an export bundle: no head");
  if (
    !counts ||
    counts.memories !== seen.memories ||
    counts.edges !== seen.edges ||
    counts.audit !== seen.audit
  ) {
    throw invalidArgument(
      "bundle",
      `the bundle's counts do not match its records (read ${seen.memories} memories, ${seen.edges} edges, ${seen.audit} audit entries): truncated or edited`,
    );
  }
  return { memories: seen.memories, edges: seen.edges, chunks: chunksWritten, format, sourceTenantId };
}

/** One batch of versions: rows, chunks (tsvector, BM25 via the triggers) and their vectors. */
async function writeMemories(
  deps: LifecycleDeps,
  tx: TransactionSql,
  tenantId: string,
  batch: readonly PendingMemory[],
): Promise<number> {
  const space = deps.embedder.id;
  const allChunks = batch.flatMap((p) => p.chunks);
  const vectors = await embedChunks(deps.embedder, allChunks);
  const rows = batch.map(({ memory: m, chunks }) => ({
    id: importedId(tenantId, m.id),
    lineage_id: importedId(tenantId, m.lineageId),
    kind: m.kind,
    memory_type: m.memoryType,
    title: m.title,
    content: m.content,
    content_sha256: contentSha256(m.content).toString("hex"),
    source: m.source,
    tags: m.tags,
    metadata: m.metadata,
    status: m.status,
    status_detail: m.statusDetail,
    chunks_written: chunks.length,
    embedding_space: m.status === "failed" ? null : space,
    update_reason: m.updateReason,
    valid_from: m.validFrom,
    valid_to: m.validTo,
    recorded_at: m.recordedAt,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }));
  await guarded(
    () => tx`
    insert into memories (id, tenant_id, lineage_id, kind, memory_type, title, content, content_sha256,
                          source, tags, metadata, status, status_detail, chunks_written, embedding_space,
                          update_reason, valid_from, valid_to, recorded_at, created_at, updated_at)
    select r.id, ${tenantId}, r.lineage_id, r.kind, r.memory_type, r.title, r.content,
           decode(r.content_sha256, 'hex'), r.source,
           array(select jsonb_array_elements_text(r.tags)), r.metadata, r.status, r.status_detail,
           r.chunks_written, r.embedding_space, r.update_reason, r.valid_from, r.valid_to, r.recorded_at,
           r.created_at, r.updated_at
    from jsonb_to_recordset(${tx.json(rows as unknown as postgres.JSONValue)}) as r(
      id uuid, lineage_id uuid, kind text, memory_type text, title text, content text,
      content_sha256 text, source text, tags jsonb, metadata jsonb, status text, status_detail text,
      chunks_written int, embedding_space text, update_reason text, valid_from timestamptz,
      valid_to timestamptz, recorded_at timestamptz, created_at timestamptz, updated_at timestamptz)`,
  );
  if (allChunks.length === 0) return 0;
  const chunkRows = batch.flatMap(({ memory: m, chunks }) =>
    chunks.map((c) => ({
      memory_id: importedId(tenantId, m.id),
      ordinal: c.ordinal,
      content: c.text,
      index_text: c.indexText,
      char_start: c.charStart,
      char_end: c.charEnd,
      token_count: c.tokenCount,
      valid_from: m.validFrom,
      valid_to: m.validTo,
    })),
  );
  // Vectors are appended inside the transaction's lifetime, so chunks are stored as vector_stored:
  // if the transaction does not commit, the import drops the tables again.
  const inserted = await tx<
    { id: string; memory_id: string; ordinal: number; valid_from: Date; valid_to: Date | null }[]
  >`
    insert into chunks (tenant_id, memory_id, ordinal, content, char_start, char_end, token_count, tsv,
                        valid_from, valid_to, vector_stored)
    select ${tenantId}, r.memory_id, r.ordinal, r.content, r.char_start, r.char_end, r.token_count,
           to_tsvector('german', r.index_text), r.valid_from, r.valid_to, true
    from jsonb_to_recordset(${tx.json(chunkRows as unknown as postgres.JSONValue)}) as r(
      memory_id uuid, ordinal int, content text, index_text text, char_start int, char_end int,
      token_count int, valid_from timestamptz, valid_to timestamptz)
    returning id, memory_id, ordinal, valid_from, valid_to`;
  const vectorOf = new Map<string, Float32Array>();
  chunkRows.forEach((c, i) => {
    vectorOf.set(`${c.memory_id}:${c.ordinal}`, vectors[i] ?? new Float32Array(0));
  });
  await deps.vectors.upsert(
    tenantId,
    space,
    inserted.map((c) => ({
      chunkId: c.id,
      memoryId: c.memory_id,
      vector: vectorOf.get(`${c.memory_id}:${c.ordinal}`) ?? new Float32Array(0),
      validFrom: c.valid_from,
      validTo: c.valid_to,
    })),
    // importTenant counts the table's rows once at the end instead.
    { readBack: false },
  );
  return inserted.length;
}

async function writeEdges(tx: TransactionSql, tenantId: string, batch: readonly BundleEdge[]): Promise<void> {
  const rows = batch.map((e) => ({
    id: importedId(tenantId, e.id),
    from_id: importedId(tenantId, e.fromId),
    to_id: importedId(tenantId, e.toId),
    rel_type: e.relType,
    inverse_of: e.inverseEdgeId === null ? null : importedId(tenantId, e.inverseEdgeId),
    valid_from: e.validFrom,
    valid_to: e.validTo,
    created_at: e.createdAt,
  }));
  await guarded(
    () => tx`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from, valid_to, created_at)
    select r.id, ${tenantId}, r.from_id, r.to_id, r.rel_type, r.inverse_of, r.valid_from, r.valid_to, r.created_at
    from jsonb_to_recordset(${tx.json(rows as unknown as postgres.JSONValue)}) as r(
      id uuid, from_id uuid, to_id uuid, rel_type text, inverse_of uuid, valid_from timestamptz,
      valid_to timestamptz, created_at timestamptz)`,
  );
}

/**
 * A bundle that breaks a rule of the schema (an edge to a memory it does not contain, two current
 * versions of one lineage, valid_to before valid_from) is the caller's error: 400, not 500. The
 * deferred inverse_of check fires at commit and is mapped the same way by the caller's catch.
 */
async function guarded<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("23")) {
      const detail = (error as { constraint_name?: string }).constraint_name ?? code;
      throw invalidArgument("bundle", `the bundle breaks a rule of the data model (${detail})`);
    }
    throw error;
  }
}

async function checkQuota(tx: TransactionSql, caller: ImportTarget, upgradeUrl: string): Promise<void> {
  const limit = caller.limits.memoryLimit;
  if (limit === undefined) return;
  const used = await countMemories(tx, caller.tenantId);
  if (used <= limit) return;
  throw planGateError({
    feature: "memory_limit",
    currentPlan: caller.plan,
    requiredPlans: (Object.keys(PLANS) as PlanName[]).filter((p) => PLANS[p].memoryLimit === undefined),
    limit: BigInt(limit),
    used: BigInt(used),
    message: `The bundle holds ${used.toLocaleString("en-US")} memories; your plan stores ${limit.toLocaleString("en-US")}. Nothing was imported; upgrade your plan and import again.`,
    upgradeUrl,
  });
}
