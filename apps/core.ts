import { loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { createProcessShutdown, startOrExit } from "./shutdown.js";
import { startCoreStack } from "./start-core-stack.js";

// `npm run start:core`: core alone (gRPC, gRPC-Web and Connect on GRPC_PORT) for scale-out; gateways
// reach it with CORE_URL. Runs the worker in process unless WORKER=false. TRUST_PROXY=true makes it
// trust the client address gateways forward (x-client-ip) for per-IP limits.

const version = readVersion();
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const shutdown = createProcessShutdown(logger, "core");
const { grpc, worker } = await startOrExit(shutdown, logger, () =>
  startCoreStack({ config, logger, version, shutdown }),
);
logger.info(
  { grpc: `${config.host}:${grpc.port}`, worker: worker ? "in process" : "off" },
  `core ${version} listening`,
);
