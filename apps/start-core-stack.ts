import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { type Core, createCore } from "../core/create-core.js";
import { loadModels, type Models } from "../core/models/load-models.js";
import { readHotList } from "../core/recall/bm25/hot-list.js";
import { waitForFirstWarm, warmHotVectorsEarly } from "../core/recall/warm-workspaces.js";
import { type GrpcServer, startGrpcServer } from "../core/server.js";
import { type Storage, startStorage } from "../core/start-storage.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createRateLimiters, type RateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { remoteWorkerCheck, type Worker } from "../worker/create-worker.js";
import type { Shutdown } from "./shutdown.js";
import { observeDatabase } from "./start-metrics.js";
import { startConfiguredWorker } from "./start-worker.js";

/** Everything behind the gateways: storage, models, worker, rate limiters, core and its gRPC server. */
export interface CoreStack {
  readonly storage: Storage;
  readonly models: Models;
  readonly worker: Worker | undefined;
  readonly rateLimiters: RateLimiters;
  readonly core: Core;
  readonly grpc: GrpcServer;
}

export interface StartCoreStackOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  /** Replaces the configured models (tests pass small deterministic ones). */
  readonly models?: Models | undefined;
  /**
   * Receives each part's stop as soon as the part runs, so a failure half-way (or a signal during a
   * slow start) still stops what already started, last started first.
   */
  readonly shutdown: Shutdown;
  /** The process's metrics. */
  readonly metrics: ServiceMetrics;
}

/** The one composition of core, shared by `npm start` (with the edge) and `npm run start:core`. */
export async function startCoreStack(options: StartCoreStackOptions): Promise<CoreStack> {
  const { config, logger, version, shutdown, metrics } = options;
  const storage = await startStorage(config, logger);
  shutdown.push(() => storage.stop());
  shutdown.pushUrgent(() => storage.stopDatabaseServer());
  observeDatabase(metrics, storage.db);
  // The largest hot workspaces' ANN indexes load (LanceDB's threads) while the models load (this one).
  if (config.bm25Index.mode !== "sql") {
    const early = warmHotVectorsEarly({
      vectors: storage.vectors,
      hotList: () => readHotList(config.bm25Index.segmentDirectory),
      logger,
    });
    shutdown.push(async () => {
      early.stop();
      await early.done;
    });
  }
  const models = options.models ?? (await loadModels(config, logger));
  shutdown.push(() => models.close());
  const worker = config.runWorker
    ? await startConfiguredWorker(config, storage, models, logger, shutdown, metrics)
    : undefined;
  // One rate-limit store (Redis or memory) for core's per-token limits and the edge's per-IP ones.
  const rateLimiters = createRateLimiters({
    redisUrl: config.redisUrl,
    keyPrefix: config.rateLimitPrefix,
    logger,
  });
  shutdown.push(() => rateLimiters.close());
  const core = createCore({
    db: storage.db,
    vectors: storage.vectors,
    embedder: models.embedder,
    reranker: models.reranker,
    lexicon: models.lexicon,
    thesaurus: models.thesaurus,
    logger,
    version,
    publicUrl: config.publicUrl,
    trustClientIp: config.trustProxy,
    workerCheck: worker?.check ?? remoteWorkerCheck(storage.db),
    rateLimiters,
    mail: { smtpUrl: config.smtpUrl, from: config.mailFrom },
    stripe: config.stripe,
    selfHostedPlan: config.selfHostedPlan,
    masterKey: config.masterKey,
    providerAllowPrivateUrls: config.providerAllowPrivateUrls,
    oauthClientMetadataAllowPrivateUrls: config.oauthClientMetadataAllowPrivateUrls,
    webhookAllowPrivateTargets: config.webhooks.allowPrivateTargets,
    webFetchAllowPrivateUrls: config.webFetch.allowPrivateUrls,
    webFetchLimits: {
      timeoutMs: config.webFetch.timeoutMs,
      maxBytes: config.webFetch.maxBytes,
      maxRedirects: 5,
    },
    vectorPurgeDelayMs: config.vectorPurgeDelayMs,
    bm25Index: config.bm25Index,
    recallPrf: config.recallPrf,
    recallTimeZone: config.recallTimeZone,
    workspaceState: storage.workspaceState,
    metrics,
  });
  shutdown.push(() => core.close());
  // A restarted process takes calls once its hottest workspaces are warm, or after STARTUP_WARM_MS
  // whatever is still loading (ADR 0495): their first recalls then cost what later ones do.
  if (core.warmUp) {
    const { ms, ready } = await waitForFirstWarm(core.warmUp, config.startupWarmMs);
    if (ms > 0) logger.info({ ms, ready }, "hottest workspaces warmed before listening");
  }
  const grpc = await startGrpcServer({
    routes: core.routes,
    interceptors: core.interceptors,
    host: config.host,
    port: config.grpcPort,
  });
  shutdown.push(() => grpc.close());
  return { storage, models, worker, rateLimiters, core, grpc };
}
