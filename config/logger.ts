import { type Logger, pino } from "pino";

export type { Logger };

/**
 * Structured JSON logs on stdout. Credentials are redacted by path as a second line of defence;
 * the first is never putting them into log objects.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: "memory-service" },
    redact: {
      paths: [
        "authorization",
        "cookie",
        "token",
        "*.authorization",
        "*.cookie",
        "*.token",
        "*.apiKey",
        "*.password",
        "req.headers.authorization",
        "req.headers.cookie",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination as never) : pino(options);
}
