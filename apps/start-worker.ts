import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { scheduleMaintenance } from "../core/memories/schedule-maintenance.js";
import type { Models } from "../core/models/load-models.js";
import type { Storage } from "../core/start-storage.js";
import { startWorker, type Worker } from "../worker/create-worker.js";
import { createTaskList } from "../worker/tasks/task-list.js";

/** The worker with every job kind, as each entry point (all-in-one, core, worker) runs it. */
export async function startConfiguredWorker(
  config: Config,
  storage: Storage,
  models: Models,
  logger: Logger,
): Promise<Worker> {
  const worker = await startWorker({
    db: storage.db,
    databaseUrl: storage.databaseUrl,
    concurrency: config.workerConcurrency,
    tasks: createTaskList({ db: storage.db, vectors: storage.vectors, embedder: models.embedder, logger }),
    logger,
  });
  // The periodic reconcile/maintenance sweep reschedules itself; starting a worker (re)starts it, so a
  // changed embedding provider begins re-embedding at once. One pending sweep under a fixed job key.
  await scheduleMaintenance(storage.db.sql);
  return worker;
}
