import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { loadModels } from "../core/models/load-models.js";
import { startStorage } from "../core/start-storage.js";
import { createServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";
import { observeDatabase, startMetricsServer } from "./start-metrics.js";
import { startTracing } from "./start-tracing.js";
import { startConfiguredWorker } from "./start-worker.js";

// `npm run start:worker`: background jobs alone (async indexing, reconciliation, webhooks), as many
// replicas as needed on the same queue. Needs the shared DATABASE_URL and LANCEDB_URI.

const config = loadConfigOrExit((c) =>
  c.databaseUrl
    ? undefined
    : "DATABASE_URL: required to run the worker alone (embedded PostgreSQL is per process)",
);
const logger = createLogger(config.logLevel);
const shutdown = createProcessShutdown(logger, "worker");
const metrics = createServiceMetrics();
const worker = await startOrExit(shutdown, logger, async () => {
  await startTracing(config.tracing, logger, shutdown);
  await startMetricsServer(config.metrics, metrics, logger, shutdown);
  const storage = await startStorage(config, logger);
  shutdown.push(() => storage.stop());
  observeDatabase(metrics, storage.db);
  // The worker never recalls: no thesaurus.
  const models = await loadModels(config, logger, { thesaurus: false, builtinWorkers: 0 });
  shutdown.push(() => models.close());
  return startConfiguredWorker(config, storage, models, logger, shutdown, metrics);
});
logger.info({ worker: worker.id, concurrency: config.workerConcurrency }, "worker running");
