import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { createEdge } from "../edge/create-edge.js";
import { createCoreClients, createRemoteCoreTransport } from "../gateway-kit/core-clients.js";
import { createRateLimiters } from "../lib/rate-limit/rate-limiters.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";

// `npm run start:gateway`: the HTTP edge with both gateways alone, reaching core over gRPC at
// CORE_URL. Stateless: run as many as needed behind a load balancer.

const version = readVersion();
const config = loadConfigOrExit((c) =>
  c.coreUrl ? undefined : "CORE_URL: required to run the gateway alone",
);
const logger = createLogger(config.logLevel);
const shutdown = createProcessShutdown(logger, "gateway");
await startOrExit(shutdown, logger, async () => {
  // The per-IP route limits share their store (Redis) with core's per-token limits.
  const rateLimiters = createRateLimiters({
    redisUrl: config.redisUrl,
    keyPrefix: config.rateLimitPrefix,
    logger,
  });
  shutdown.push(() => rateLimiters.close());
  const edge = await createEdge({
    clients: createCoreClients(createRemoteCoreTransport(config.coreUrl ?? "")),
    logger,
    version,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    publicUrl: config.publicUrl,
    rateLimiters,
  });
  await edge.listen({ host: config.host, port: config.port });
  shutdown.push(() => edge.close());
});
logger.info(
  { http: `http://${config.host}:${config.port}`, core: config.coreUrl },
  `gateway ${version} listening`,
);
