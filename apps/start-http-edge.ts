import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { createEdge } from "../edge/create-edge.js";
import type { CoreClients } from "../gateway-kit/core-clients.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import type { RateLimiters } from "../lib/rate-limit/rate-limiters.js";
import type { Shutdown } from "./shutdown.js";

/** The HTTP edge (both gateways) listening on PORT, as the all-in-one and gateway processes run it. */
export async function startHttpEdge(options: {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly clients: CoreClients;
  readonly rateLimiters: RateLimiters;
  readonly shutdown: Shutdown;
  readonly metrics: ServiceMetrics;
}): Promise<{ readonly edge: FastifyInstance; readonly port: number }> {
  const { config } = options;
  const edge = await createEdge({
    clients: options.clients,
    logger: options.logger,
    version: options.version,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    publicUrl: config.publicUrl,
    rateLimiters: options.rateLimiters,
    metrics: options.metrics,
    metricsToken: config.metrics.token,
    coreTimeoutMs: config.coreTimeoutMs,
  });
  await edge.listen({ host: config.host, port: config.port });
  options.shutdown.push(() => edge.close());
  return { edge, port: (edge.server.address() as AddressInfo).port };
}
