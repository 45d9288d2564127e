import { createShutdownStack, loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { remoteWorkerCheck } from "../worker/create-worker.js";
import { startConfiguredWorker } from "../worker/start-configured-worker.js";
import { createRateLimiters } from "./auth/rate-limiters.js";
import { createCore } from "./create-core.js";
import { loadModels } from "./models/load-models.js";
import { startGrpcServer } from "./server.js";
import { startStorage } from "./start-storage.js";

// `npm run start:core`: core alone (gRPC, gRPC-Web and Connect on GRPC_PORT) for scale-out; gateways
// reach it with CORE_URL. Runs the worker in process unless WORKER=false. TRUST_PROXY=true makes it
// trust the client address gateways forward (x-client-ip) for per-IP limits.

const version = readVersion();
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const shutdown = createShutdownStack(logger, "core");
const storage = await startStorage(config, logger);
shutdown.push(() => storage.stop());
const models = await loadModels(config, logger);
shutdown.push(() => models.close());
const worker = config.runWorker ? await startConfiguredWorker(config, storage, models, logger) : undefined;
if (worker) shutdown.push(() => worker.stop());
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
  logger,
  version,
  publicUrl: config.publicUrl,
  trustClientIp: config.trustProxy,
  workerCheck: worker?.check ?? remoteWorkerCheck(storage.db),
  rateLimiters,
  mail: { smtpUrl: config.smtpUrl, from: config.mailFrom },
});
const grpc = await startGrpcServer({
  routes: core.routes,
  interceptors: core.interceptors,
  host: config.host,
  port: config.grpcPort,
});
shutdown.push(() => grpc.close());
logger.info(
  { grpc: `${config.host}:${grpc.port}`, worker: worker ? "in process" : "off" },
  `core ${version} listening`,
);
