import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { parseMasterKey } from "../core/keys/key-cipher.js";
import { createTenantModels } from "../core/keys/tenant-models.js";
import { scheduleMaintenance, scheduleSweepAfterStart } from "../core/memories/index.js";
import type { Models } from "../core/models/load-models.js";
import type { Storage } from "../core/start-storage.js";
import { scheduleAuditPurge } from "../core/store/purge-audit-log.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { sharedOutboundGuard } from "../lib/net/outbound-guard.js";
import { startWorker, type Worker } from "../worker/create-worker.js";
import { startWebhookDispatcher } from "../worker/start-webhook-dispatcher.js";
import { createTaskList } from "../worker/tasks/task-list.js";
import { createMaintenanceProcess } from "../worker/vector-maintenance/maintenance-process.js";
import type { Shutdown } from "./shutdown.js";

/** The worker with every job kind, as each process that runs one (all-in-one, core, worker) starts it. */
export async function startConfiguredWorker(
  config: Config,
  storage: Storage,
  models: Models,
  logger: Logger,
  shutdown: Shutdown,
  metrics: ServiceMetrics,
): Promise<Worker> {
  // Upkeep in a child process (ADR 0560): stopped after the job queue (pushed earlier, stopped later).
  const vectorMaintainer =
    config.vectorMaintenance === "process"
      ? createMaintenanceProcess(storage.vectors.uri, logger)
      : undefined;
  if (vectorMaintainer) shutdown.push(() => vectorMaintainer.close());
  const worker = await startWorker({
    db: storage.db,
    databaseUrl: storage.databaseUrl,
    concurrency: config.workerConcurrency,
    tasks: createTaskList({
      db: storage.db,
      vectors: storage.vectors,
      embedder: models.embedder,
      logger,
      vectorMaintainer,
      models: createTenantModels({
        db: storage.db,
        masterKey: config.masterKey === undefined ? undefined : parseMasterKey(config.masterKey),
        defaultEmbedder: models.embedder,
        defaultReranker: models.reranker,
        logger,
        guard: sharedOutboundGuard(config.providerAllowPrivateUrls),
      }),
    }),
    logger,
    metrics,
  });
  shutdown.push(() => worker.stop());
  // The periodic reconcile/maintenance sweep reschedules itself; starting a worker (re)starts it, so a
  // changed embedding provider begins re-embedding at once. One pending sweep under a fixed job key.
  await scheduleMaintenance(storage.db.sql);
  // And once more when writes a crash cut off are old enough for reconcile to complete them.
  await scheduleSweepAfterStart(storage.db.sql);
  // The audit-log retention purge, likewise one pending job that reschedules itself.
  await scheduleAuditPurge(storage.db.sql);
  // Outgoing webhooks run beside the job queue (worker/webhook-dispatcher.ts says why); stopped
  // before the job queue, after HTTP and gRPC (pushed later, stopped earlier).
  const webhooks = await startWebhookDispatcher(config, storage.db, logger, { metrics });
  shutdown.push(() => webhooks.stop());
  return worker;
}
