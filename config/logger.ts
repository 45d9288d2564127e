import { type Logger, pino } from "pino";
import { currentRequestId } from "./request-context.js";

export type { Logger };

/**
 * Structured JSON logs on stdout. Credentials are redacted by path as a second line of defence;
 * the first is never putting them into log objects.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: "memory-service" },
    // Every line written on behalf of a request names it (config/request-context.ts). The edge's
    // per-request loggers already carry reqId as a binding; they are marked so it is not repeated.
    mixin: (_merge: object, _level: number, logger: Logger) =>
      (logger as MaybeRequestLogger)[BOUND_REQUEST_ID] ? {} : requestIdField(),
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

/** Marks a logger whose bindings already include reqId (the edge's per-request child loggers). */
export const BOUND_REQUEST_ID: unique symbol = Symbol("boundRequestId");
type MaybeRequestLogger = Logger & { [BOUND_REQUEST_ID]?: true };

export function markRequestBound(logger: Logger): Logger {
  (logger as MaybeRequestLogger)[BOUND_REQUEST_ID] = true;
  return logger;
}

// A fresh object each time: pino merges the line's own fields into what the mixin returns.
function requestIdField(): object {
  const reqId = currentRequestId();
  return reqId === undefined ? {} : { reqId };
}
