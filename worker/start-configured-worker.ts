import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import type { Models } from "../core/models/load-models.js";
import type { Storage } from "../core/start-storage.js";
import { startWorker, type Worker } from "./create-worker.js";
import { createTaskList } from "./tasks/task-list.js";

/** The worker with every job kind, as each entry point (all-in-one, core, worker) runs it. */
export function startConfiguredWorker(
  config: Config,
  storage: Storage,
  models: Models,
  logger: Logger,
): Promise<Worker> {
  return startWorker({
    db: storage.db,
    databaseUrl: storage.databaseUrl,
    concurrency: config.workerConcurrency,
    tasks: createTaskList({ db: storage.db, vectors: storage.vectors, embedder: models.embedder, logger }),
    logger,
  });
}
