import { createRouterTransport } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import type { Core } from "../core/create-core.js";
import type { Models } from "../core/models/load-models.js";
import type { Storage } from "../core/start-storage.js";
import { type CoreClients, createCoreClients } from "../gateway-kit/core-clients.js";
import { createServiceMetrics, type ServiceMetrics } from "../lib/metrics/service-metrics.js";
import type { Worker } from "../worker/create-worker.js";
import { createShutdown, type Shutdown } from "./shutdown.js";
import { startCoreStack } from "./start-core-stack.js";
import { startHttpEdge } from "./start-http-edge.js";
import { startMetricsServer } from "./start-metrics.js";
import { startTracing } from "./start-tracing.js";

/** The whole service in one process: storage, core (gRPC), the HTTP edge, the worker. */
export interface RunningService {
  readonly httpUrl: string;
  readonly grpcUrl: string;
  readonly storage: Storage;
  readonly models: Models;
  readonly core: Core;
  /** Clients over the in-process transport, as the gateways use them. */
  readonly clients: CoreClients;
  readonly edge: FastifyInstance;
  readonly worker: Worker | undefined;
  readonly metrics: ServiceMetrics;
  /** METRICS_PORT as bound (0 picks a free one); unset: no metrics listener. */
  readonly metricsPort: number | undefined;
  /** Stops accepting, drains requests and jobs, then closes storage (embedded PostgreSQL last). */
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  /** Replaces the configured models (tests pass small deterministic ones). */
  readonly models?: Models;
  /** The process's shutdown (`npm start`); default: one of this service's own (tests). */
  readonly shutdown?: Shutdown;
  /** The process's metrics; default: a registry of this service's own. */
  readonly metrics?: ServiceMetrics;
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { config, logger, version } = options;
  const shutdown = options.shutdown ?? createShutdown(logger);
  const metrics = options.metrics ?? createServiceMetrics();
  try {
    await startTracing(config.tracing, logger, shutdown);
    const metricsPort = await startMetricsServer(config.metrics, metrics, logger, shutdown);
    const { storage, models, worker, rateLimiters, core, grpc } = await startCoreStack({
      config,
      logger,
      version,
      models: options.models,
      shutdown,
      metrics,
    });
    // The same services the gRPC server hosts, reached in memory: built once, routed twice.
    const clients = createCoreClients(
      createRouterTransport(core.routes, { router: { interceptors: core.inProcessInterceptors } }),
    );
    const { edge, port: httpPort } = await startHttpEdge({
      config,
      logger,
      version,
      clients,
      rateLimiters,
      shutdown,
      metrics,
    });
    return {
      httpUrl: `http://${config.host}:${httpPort}`,
      grpcUrl: `http://${config.host}:${grpc.port}`,
      storage,
      models,
      core,
      clients,
      edge,
      worker,
      metrics,
      metricsPort,
      stop: () => shutdown.stopAll(),
    };
  } catch (error) {
    await shutdown.stopAll();
    throw error;
  }
}
