import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { createHeapGrowthBound } from "../../lib/heap-growth-bound.js";
import type { TenantCaller } from "../auth/caller.js";
import type { PlanName } from "../auth/principal.js";
import { type BundleEdge, type BundleMemory, checkCounts, readBundle } from "../bundle/index.js";
import { coreError, invalidArgument, planGateError } from "../errors.js";
import {
  countMemories,
  lockTenantQuota,
  MAINTAIN_VECTORS_TASK,
  openRestore,
  type RestoredEdge,
  type RestoredVersion,
} from "../memories/index.js";
import { PLANS } from "../plans/plans.js";
import type { TransactionSql } from "../store/database.js";
import { enqueueJob } from "../store/job-queue.js";
import { VectorWriteUnverifiedError } from "../vectors/write-verified.js";
import { importedId } from "./imported-id.js";
import type { LifecycleDeps } from "./lifecycle-deps.js";
import { recordLifecycleAudit } from "./record-lifecycle-audit.js";

export interface ImportResult {
  readonly memories: number;
  readonly edges: number;
  readonly chunks: number;
  readonly format: string;
  readonly sourceTenantId: string;
}

/**
 * POST /api/tenant/import (docs/export.md "Import", ADR 0200): reads an export bundle as it streams
 * in and restores every memory version and every edge through core/memories (openRestore) into the
 * caller's workspace, which must be empty. Ids are derived from the bundle's (imported-id.ts). Chunks
 * are cut again and embedded with this workspace's embedder as the batches go by.
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
  const seen = { memories: 0, edges: 0, audit: 0 };
  let counts: Record<string, unknown> | undefined;
  // Each written batch is garbage V8 would otherwise let pile up (lib/heap-growth-bound.ts, ADR 0201).
  const restore = openRestore(deps, tx, tenantId, {
    onBatchWritten: createHeapGrowthBound({ collectFirst: true }),
  });

  for await (const item of readBundle(stream)) {
    switch (item.kind) {
      case "head":
        format = item.format;
        sourceTenantId = item.sourceTenantId;
        break;
      case "memories":
        seen.memories++;
        await guarded(() => restore.addVersion(restoredVersion(tenantId, item.record)));
        break;
      case "edges":
        seen.edges++;
        await guarded(() => restore.addEdge(restoredEdge(tenantId, item.record)));
        break;
      case "audit":
        // The source's audit log stays with the bundle: this instance's log records the import itself.
        seen.audit++;
        break;
      case "counts":
        counts = item.counts;
        break;
    }
  }
  await guarded(() => restore.finish());
  if (!format) throw invalidArgument("bundle", "not an export bundle: no head");
  checkCounts(counts, seen);
  return {
    memories: seen.memories,
    edges: seen.edges,
    chunks: restore.chunksWritten(),
    format,
    sourceTenantId,
  };
}

/** A bundle's memory version with the ids it gets in this workspace (imported-id.ts). */
function restoredVersion(tenantId: string, m: BundleMemory): RestoredVersion {
  return { ...m, id: importedId(tenantId, m.id), lineageId: importedId(tenantId, m.lineageId) };
}

/** A bundle's edge with the ids it gets in this workspace. */
function restoredEdge(tenantId: string, e: BundleEdge): RestoredEdge {
  return {
    id: importedId(tenantId, e.id),
    fromId: importedId(tenantId, e.fromId),
    toId: importedId(tenantId, e.toId),
    relType: e.relType,
    inverseOf: e.inverseEdgeId === null ? null : importedId(tenantId, e.inverseEdgeId),
    validFrom: e.validFrom,
    validTo: e.validTo,
    createdAt: e.createdAt,
  };
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
