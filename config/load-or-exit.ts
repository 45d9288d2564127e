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
