import { loadConfigOrExit, onShutdownSignal } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { startStorage } from "../core/start-storage.js";
import { startConfiguredWorker } from "./start-worker.js";

// `npm run start:worker`: background jobs alone (async indexing, reconciliation, webhooks), as many
// replicas as needed on the same queue. Needs the shared DATABASE_URL and LANCEDB_URI.

const config = loadConfigOrExit((c) =>
  c.databaseUrl
    ? undefined
    : "DATABASE_URL: required to run the worker alone (embedded PostgreSQL is per process)",
);
const logger = createLogger(config.logLevel);
const storage = await startStorage(config, logger);
const models = await loadModels(config, logger);
const worker = await startConfiguredWorker(config, storage, models, logger);
logger.info({ worker: worker.id, concurrency: config.workerConcurrency }, "worker running");

onShutdownSignal(async (signal) => {
  logger.info({ signal }, "worker shutting down: finishing running jobs");
  await worker.stop();
  await models.close();
  await storage.stop();
  logger.info("stopped");
});
