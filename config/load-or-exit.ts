import { type Config, ConfigError, loadConfig } from "./config.js";

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
