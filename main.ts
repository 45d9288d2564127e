import { readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "./config/config.js";
import { createLogger } from "./config/logger.js";
import { bootstrapDefaultTenant } from "./core/tenancy/bootstrap-default-tenant.js";
import { startService } from "./service/start-service.js";

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
const service = await startService({ config, logger, version });
logger.info(
  {
    http: service.httpUrl,
    grpc: service.grpcUrl,
    mcp: `${config.publicUrl}/api/mcp/v1`,
    worker: service.worker ? "in process" : "off",
    embedder: service.models.embedder.id,
    reranker: service.models.reranker?.id ?? "none",
  },
  `memory-service ${version} listening`,
);
if (service.storage.embedded) await bootstrapDefaultTenant(service.storage.db, config.publicUrl);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: draining requests and jobs");
  await service.stop();
  logger.info("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
