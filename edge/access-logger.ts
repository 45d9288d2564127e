import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "../config/logger.js";

/** Query parameters that carry secrets (magic-link tokens) are never logged. */
const SECRET_QUERY = /([?&](?:token|code|key)=)[^&]*/gi;

/** The edge's access log: method, URL without secret query values, client IP; never headers (credentials). */
export function accessLoggerOf(logger: Logger): FastifyBaseLogger {
  return logger.child(
    {},
    {
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: req.url.replace(SECRET_QUERY, "$1[redacted]"),
          ip: req.ip,
        }),
      },
    },
  );
}
