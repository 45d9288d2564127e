import { Logger as GraphileLogger } from "graphile-worker";
import type { Logger } from "../config/logger.js";

/** Routes graphile-worker's log lines into our structured log. */
export function graphileLogger(logger: Logger): GraphileLogger {
  const child = logger.child({ component: "worker" });
  return new GraphileLogger((scope) => (level, message, meta) => {
    const fields = { ...scope, ...(meta ?? {}) };
    if (level === "error") child.error(fields, message);
    else if (level === "warning") child.warn(fields, message);
    else child.debug(fields, message);
  });
}
