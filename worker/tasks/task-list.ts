import type { TaskList } from "graphile-worker";
import type { Logger } from "../../config/logger.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Database } from "../../core/store/database.js";
import type { VectorStore } from "../../core/vectors/vector-store.js";

export interface TaskDependencies {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly logger: Logger;
}

/** Job kinds the worker runs, one file per kind under worker/tasks/. */
export function createTaskList(_deps: TaskDependencies): TaskList {
  return {};
}
