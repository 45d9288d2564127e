import { readFileSync } from "node:fs";
import { createRouterTransport } from "@connectrpc/connect";
import { ConfigError, loadConfig } from "./config/config.js";
import { createLogger } from "./config/logger.js";
import { createCore } from "./core/create-core.js";
import { loadModels } from "./core/models/load-models.js";
import { startGrpcServer } from "./core/server.js";
import { startStorage } from "./core/start-storage.js";
import { bootstrapDefaultTenant } from "./core/tenancy/bootstrap-default-tenant.js";
import { createCoreClients } from "./edge/core-clients.js";
import { createEdge } from "./edge/create-edge.js";
import { createTaskList } from "./worker/tasks/task-list.js";
import { remoteWorkerCheck, startWorker } from "./worker/create-worker.js";

// `npm start`: the whole service in one process on embedded defaults — core gRPC server, the HTTP
// edge with both gateways (in-process transport to core), and the worker.

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  version: string;
};

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
const storage = await startStorage(config, logger);
const models = await loadModels(config, logger);
const worker = config.runWorker
  ? await startWorker({
      db: storage.db,
      databaseUrl: storage.databaseUrl,
      concurrency: config.workerConcurrency,
      tasks: createTaskList({ db: storage.db, vectors: storage.vectors, embedder: models.embedder, logger }),
      logger,
    })
  : undefined;
const core = createCore({
  db: storage.db,
  vectors: storage.vectors,
  embedder: models.embedder,
  reranker: models.reranker,
  logger,
  version,
  publicUrl: config.publicUrl,
  trustClientIp: true,
  workerCheck: worker?.check ?? remoteWorkerCheck(storage.db),
});
const grpc = await startGrpcServer({
  routes: core.routes,
  interceptors: core.interceptors,
  host: config.host,
  port: config.grpcPort,
});
const transport = createRouterTransport(core.routes, { router: { interceptors: core.interceptors } });
const edge = await createEdge({
  clients: createCoreClients(transport),
  logger,
  version,
  trustProxy: config.trustProxy,
  corsOrigins: config.corsOrigins,
});
await edge.listen({ host: config.host, port: config.port });
logger.info(
  {
    http: `http://${config.host}:${config.port}`,
    grpc: `${config.host}:${grpc.port}`,
    mcp: `${config.publicUrl}/api/mcp/v1`,
    worker: worker ? "in process" : "off",
    embedder: models.embedder.id,
    reranker: models.reranker?.id ?? "none",
  },
  `memory-service ${version} listening`,
);
if (storage.embedded) await bootstrapDefaultTenant(storage.db, config.publicUrl);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: draining requests and jobs");
  await edge.close();
  await grpc.close();
  await worker?.stop();
  await models.close();
  await storage.stop();
  logger.info("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
