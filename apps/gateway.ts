import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { createCoreClients, createCoreFleetTransport } from "../gateway-kit/core-clients.js";
import { createServiceMetrics } from "../lib/metrics/service-metrics.js";
import { createRateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";
import { startHttpEdge } from "./start-http-edge.js";
import { startMetricsServer } from "./start-metrics.js";
import { startTracing } from "./start-tracing.js";

// `npm run start:gateway`: the HTTP edge with both gateways alone, reaching core over gRPC at
// CORE_URL — one core (or a balancer), or a list of cores it routes workspaces over (ADR 0380).
// Stateless: run as many as needed behind a load balancer.

const version = readVersion();
const config = loadConfigOrExit((c) =>
  c.coreUrls ? undefined : "CORE_URL: required to run the gateway alone",
);
const logger = createLogger(config.logLevel);
const shutdown = createProcessShutdown(logger, "gateway");
const metrics = createServiceMetrics();
await startOrExit(shutdown, logger, async () => {
  await startTracing(config.tracing, logger, shutdown);
  await startMetricsServer(config.metrics, metrics, logger, shutdown);
  // The per-IP route limits share their store (Redis) with core's per-token limits.
  const rateLimiters = createRateLimiters({
    redisUrl: config.redisUrl,
    keyPrefix: config.rateLimitPrefix,
    logger,
  });
  shutdown.push(() => rateLimiters.close());
  const transport = createCoreFleetTransport(config.coreUrls ?? [], {
    onFailover: ({ from, error }) =>
      logger.warn({ core: from, err: error.message }, "core unreachable: its workspaces go to the next core"),
  });
  const clients = createCoreClients(transport);
  await startHttpEdge({ config, logger, version, clients, rateLimiters, shutdown, metrics });
});
logger.info(
  { http: `http://${config.host}:${config.port}`, core: config.coreUrls?.join(",") },
  `gateway ${version} listening`,
);
