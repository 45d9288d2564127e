import { createShutdownStack, loadConfigOrExit } from "../config/load-or-exit.js";
import { createLogger } from "../config/logger.js";
import { readVersion } from "../config/read-version.js";
import { startCoreStack } from "./start-core-stack.js";

// `npm run start:core`: core alone (gRPC, gRPC-Web and Connect on GRPC_PORT) for scale-out; gateways
// reach it with CORE_URL. Runs the worker in process unless WORKER=false. TRUST_PROXY=true makes it
// trust the client address gateways forward (x-client-ip) for per-IP limits.

const version = readVersion();
const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const shutdown = createShutdownStack(logger, "core");
const { grpc, worker } = await startCoreStack({ config, logger, version, onStarted: shutdown.push });
logger.info(
  { grpc: `${config.host}:${grpc.port}`, worker: worker ? "in process" : "off" },
  `core ${version} listening`,
);
