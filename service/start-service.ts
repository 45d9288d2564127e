import type { AddressInfo } from "node:net";
import { createRouterTransport } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { createRateLimiters } from "../core/auth/rate-limiters.js";
import { type Core, createCore } from "../core/create-core.js";
import { loadModels, type Models } from "../core/models/load-models.js";
import { type GrpcServer, startGrpcServer } from "../core/server.js";
import { type Storage, startStorage } from "../core/start-storage.js";
import { type CoreClients, createCoreClients } from "../edge/core-clients.js";
import { createEdge } from "../edge/create-edge.js";
import { remoteWorkerCheck, type Worker } from "../worker/create-worker.js";
import { startConfiguredWorker } from "../worker/start-configured-worker.js";

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
  /** Stops accepting, drains requests and jobs, then closes storage (embedded PostgreSQL last). */
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  /** Replaces the configured models (tests pass small deterministic ones). */
  readonly models?: Models;
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { config, logger, version } = options;
  const storage = await startStorage(config, logger);
  const stops: (() => Promise<void>)[] = [() => storage.stop()];
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((e) => logger.error({ err: e }, "shutdown step failed"));
  };
  try {
    const models = options.models ?? (await loadModels(config, logger));
    stops.push(() => models.close());
    const worker = config.runWorker
      ? await startConfiguredWorker(config, storage, models, logger)
      : undefined;
    if (worker) stops.push(() => worker.stop());
    // One rate-limit store (Redis or memory) for core's per-token limits and the edge's per-IP ones.
    const rateLimiters = createRateLimiters({
      redisUrl: config.redisUrl,
      keyPrefix: config.rateLimitPrefix,
      logger,
    });
    stops.push(() => rateLimiters.close());
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
    const grpc: GrpcServer = await startGrpcServer({
      routes: core.routes,
      interceptors: core.interceptors,
      host: config.host,
      port: config.grpcPort,
    });
    stops.push(() => grpc.close());
    const clients = createCoreClients(
      createRouterTransport(core.routes, { router: { interceptors: core.inProcessInterceptors } }),
    );
    const edge = await createEdge({
      clients,
      logger,
      version,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      publicUrl: config.publicUrl,
      rateLimiters,
    });
    await edge.listen({ host: config.host, port: config.port });
    stops.push(() => edge.close());
    const httpPort = (edge.server.address() as AddressInfo).port;
    return {
      httpUrl: `http://${config.host}:${httpPort}`,
      grpcUrl: `http://${config.host}:${grpc.port}`,
      storage,
      models,
      core,
      clients,
      edge,
      worker,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
