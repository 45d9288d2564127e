import { type Config, ConfigError, loadConfig } from "./config.js";
import type { Logger } from "./logger.js";

/** For entry points: the configuration, or one line on stderr naming the bad variable and exit 1. */
export function loadConfigOrExit(check?: (config: Config) => string | undefined): Config {
  try {
    const config = loadConfig();
    const problem = check?.(config);
    if (problem) throw new ConfigError(problem);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits 0. */
export function onShutdownSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
}

/**
 * For entry points that start parts one by one: handlers are registered at once, and a signal
 * stops whatever has started so far, last started first (so storage goes last).
 */
export function createShutdownStack(logger: Logger, what: string): { push(stop: () => Promise<void>): void } {
  const stops: (() => Promise<void>)[] = [];
  onShutdownSignal(async (signal) => {
    logger.info({ signal }, `${what} shutting down`);
    for (const stop of stops.reverse()) await stop();
    logger.info("stopped");
  });
  return { push: (stop) => stops.push(stop) };
}
