import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { createServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";
import { startCoreStack } from "./start-core-stack.js";
import { startMetricsServer } from "./start-metrics.js";
import { startTracing } from "./start-tracing.js";

// `npm run start:core`: core alone (gRPC, gRPC-Web and Connect on GRPC_PORT) for scale-out; gateways
// reach it with CORE_URL. Runs the worker in process unless WORKER=false. TRUST_PROXY=true makes it
// trust the client address gateways forward (x-client-ip) for per-IP limits.

const version = readVersion();
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const shutdown = createProcessShutdown(logger, "core");
const metrics = createServiceMetrics();
const { grpc, worker } = await startOrExit(shutdown, logger, async () => {
  await startTracing(config.tracing, logger, shutdown);
  await startMetricsServer(config.metrics, metrics, logger, shutdown);
  return startCoreStack({ config, logger, version, shutdown, metrics });
});
logger.info(
  { grpc: `${config.host}:${grpc.port}`, worker: worker ? "in process" : "off" },
  `core ${version} listening`,
);
