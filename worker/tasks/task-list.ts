import type { Task, TaskList } from "graphile-worker";
import type { Logger } from "../../config/logger.js";
import { isSaneRequestId, runWithRequestId } from "../../config/request-context.js";
import type { TenantModels } from "../../core/keys/tenant-models.js";
import {
  INDEX_MEMORY_TASK,
  MAINTAIN_VECTORS_TASK,
  type MemoryDeps,
  PURGE_ERASED_TASK,
  RECONCILE_ALL_TASK,
  RECONCILE_TENANT_TASK,
  REEMBED_TENANT_TASK,
} from "../../core/memories/index.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Database } from "../../core/store/database.js";
import { PURGE_AUDIT_LOG_TASK } from "../../core/store/purge-audit-log.js";
import type { VectorStore } from "../../core/vectors/vector-store.js";
import type { VectorMaintainer } from "../vector-maintenance/maintenance-process.js";
import { indexMemoryTask } from "./index-memory.js";
import { maintainVectorsTask } from "./maintain-vectors.js";
import { purgeAuditLogTask } from "./purge-audit-log.js";
import { purgeErasedTask } from "./purge-erased.js";
import { reconcileAllTask } from "./reconcile-all.js";
import { reconcileTenantTask } from "./reconcile-tenant.js";
import { reembedTenantTask } from "./reembed-tenant.js";
import { tenantPayload } from "./tenant-payload.js";

export interface TaskDependencies {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
  /** Per-workspace embedders (BYOK); unset: the service's embedder for every tenant. */
  readonly models?: TenantModels | undefined;
  /** Runs vector-table upkeep in a child process (ADR 0560); unset: in this process. */
  readonly vectorMaintainer?: VectorMaintainer | undefined;
}

/** Runs a tenant job with that tenant's embedder (its active space) in place of the default. */
function perTenant(deps: TaskDependencies, make: (deps: MemoryDeps) => Task): Task {
  const { models } = deps;
  if (models === undefined) return make(deps);
  return async (payload, helpers) => {
    const { tenantId } = tenantPayload.parse(payload);
    return make({ ...deps, embedder: await models.embedderFor(tenantId) })(payload, helpers);
  };
}

/** Runs a job under the request id its payload carries (the request that queued it), for its logs. */
function underRequestId(task: Task): Task {
  return (payload, helpers) => {
    const requestId = (payload as { requestId?: unknown } | null)?.requestId;
    return isSaneRequestId(requestId)
      ? runWithRequestId(requestId, () => task(payload, helpers))
      : task(payload, helpers);
  };
}

/** Job kinds the worker runs, one file per kind under worker/tasks/. */
export function createTaskList(deps: TaskDependencies): TaskList {
  return {
    [INDEX_MEMORY_TASK]: underRequestId(perTenant(deps, indexMemoryTask)),
    [RECONCILE_ALL_TASK]: reconcileAllTask(deps),
    [RECONCILE_TENANT_TASK]: perTenant(deps, reconcileTenantTask),
    [MAINTAIN_VECTORS_TASK]: maintainVectorsTask(deps, deps.vectorMaintainer),
    [REEMBED_TENANT_TASK]: reembedTenantTask(deps),
    [PURGE_AUDIT_LOG_TASK]: purgeAuditLogTask(deps),
    [PURGE_ERASED_TASK]: purgeErasedTask(deps),
  };
}
