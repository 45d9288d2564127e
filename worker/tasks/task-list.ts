import type { TaskList } from "graphile-worker";
import type { Logger } from "../../config/logger.js";
import {
  INDEX_MEMORY_TASK,
  MAINTAIN_VECTORS_TASK,
  PURGE_ERASED_TASK,
  RECONCILE_ALL_TASK,
  RECONCILE_TENANT_TASK,
  REEMBED_TENANT_TASK,
} from "../../core/memories/memory-jobs.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Database } from "../../core/store/database.js";
import type { VectorStore } from "../../core/vectors/vector-store.js";
import { indexMemoryTask } from "./index-memory.js";
import { maintainVectorsTask } from "./maintain-vectors.js";
import { purgeErasedTask } from "./purge-erased.js";
import { reconcileAllTask } from "./reconcile-all.js";
import { reconcileTenantTask } from "./reconcile-tenant.js";
import { reembedTenantTask } from "./reembed-tenant.js";

export interface TaskDependencies {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
}

/** Job kinds the worker runs, one file per kind under worker/tasks/. */
export function createTaskList(deps: TaskDependencies): TaskList {
  return {
    [INDEX_MEMORY_TASK]: indexMemoryTask(deps),
    [RECONCILE_ALL_TASK]: reconcileAllTask(deps),
    [RECONCILE_TENANT_TASK]: reconcileTenantTask(deps),
    [MAINTAIN_VECTORS_TASK]: maintainVectorsTask(deps),
    [REEMBED_TENANT_TASK]: reembedTenantTask(deps),
    [PURGE_ERASED_TASK]: purgeErasedTask(deps),
  };
}
