import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { scheduleMaintenance } from "../core/ingest/schedule-maintenance.js";
import type { Models } from "../core/models/load-models.js";
import type { Storage } from "../core/start-storage.js";
import { startWorker, type Worker } from "./create-worker.js";
import { startWebhookDispatcher } from "./start-webhook-dispatcher.js";
import { createTaskList } from "./tasks/task-list.js";

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
  // Outgoing webhooks run beside the job queue (worker/webhook-dispatcher.ts says why).
  const webhooks = await startWebhookDispatcher(config, storage.db, logger);
  return {
    ...worker,
    async stop() {
      await webhooks.stop();
      await worker.stop();
    },
  };
}
