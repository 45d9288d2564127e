import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { createDatabase } from "../../core/store/database.js";
import { startWebhookDispatcher } from "../../worker/start-webhook-dispatcher.js";

// A worker process that runs only the webhook dispatcher, composed as worker/start-configured-worker.ts
// composes it, for the crash test (kill -9) and the benchmark's worker processes. Configured from the
// environment (DATABASE_URL, MASTER_KEY, WEBHOOK_*); arguments: lease ms, attempt timeout ms and
// concurrency, so a crash is recovered within a test's time.

const config = loadConfig();
const lease = process.argv[2] ? Number(process.argv[2]) : undefined;
const timeout = process.argv[3] ? Number(process.argv[3]) : undefined;
const concurrency = process.argv[4] ? Number(process.argv[4]) : undefined;
if (!config.databaseUrl) throw new Error("DATABASE_URL is required");
const logger = createLogger(config.logLevel);
const db = createDatabase({ url: config.databaseUrl, maxConnections: 4 });
const dispatcher = await startWebhookDispatcher(config, db, logger, {
  ...(lease === undefined ? {} : { leaseMs: lease }),
  ...(timeout === undefined ? {} : { timeoutMs: timeout }),
  ...(concurrency === undefined ? {} : { concurrency }),
});
process.stdout.write("dispatcher running\n");
process.on("SIGTERM", async () => {
  await dispatcher.stop();
  await db.close();
  process.exit(0);
});
