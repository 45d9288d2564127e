import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { bootstrapDefaultTenant } from "../core/tenancy/bootstrap-default-tenant.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";
import { startService } from "./start-service.js";

// `npm start`: the whole service in one process on embedded defaults — core gRPC server, the HTTP
// edge with both gateways (in-process transport to core), and the worker. The parts also run alone:
// apps/core.ts, apps/gateway.ts, apps/worker.ts.

const version = readVersion();
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
// Signal handlers before start-up: a Ctrl-C while the service comes up (or while the first-start
// token is issued) still stops it in order, embedded PostgreSQL last.
const shutdown = createProcessShutdown(logger, "memory-service");
const service = await startOrExit(shutdown, logger, () =>
  startService({ config, logger, version, shutdown }),
);
logger.info(
  {
    http: service.httpUrl,
    dashboard: `${config.publicUrl}/dashboard`,
    grpc: service.grpcUrl,
    mcp: `${config.publicUrl}/api/mcp/v1`,
    worker: service.worker ? "in process" : "off",
    embedder: service.models.embedder.id,
    reranker: service.models.reranker?.id ?? "none",
  },
  `memory-service ${version} listening`,
);
if (service.storage.embedded) await bootstrapDefaultTenant(service.storage.db, config.publicUrl);
