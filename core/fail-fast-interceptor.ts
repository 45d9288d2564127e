import type { Interceptor } from "@connectrpc/connect";
import { unavailable } from "./errors.js";
import type { DatabaseWatchdog } from "./store/database-watchdog.js";

/** Probes that report the stall themselves (503 with the database "down", gRPC NOT_SERVING). */
const PROBES = new Set(["memory.v1.StatusService", "grpc.health.v1.Health"]);

const MESSAGE =
  "the database is not answering; retry shortly (a write may still complete once it answers: retry it with the same Idempotency-Key to learn whether it did)";

/**
 * Fail fast on a stalled database (issue 45, item 3): a call that arrives while the watchdog says
 * the database does not answer is refused at once with UNAVAILABLE (REST 503, MCP -32006), and a
 * call already waiting is answered the same way as soon as the stall is seen, instead of at the
 * 30 s deadline. The abandoned work goes on in the background and may still commit when the
 * database resumes; the keyed-write rules (docs/decisions/0350-crash-proof-idempotency-and-fail-fast.md) tell a retry what happened.
 * Server streams (exports) are left to their own deadline: their answer has already begun.
 */
export function createFailFastInterceptor(watchdog: DatabaseWatchdog): Interceptor {
  return (next) => async (req) => {
    if (PROBES.has(req.service.typeName)) return next(req);
    if (watchdog.stalled) throw unavailable(MESSAGE, undefined);
    if (req.method.methodKind === "server_streaming" || req.method.methodKind === "bidi_streaming") {
      return next(req);
    }
    let unsubscribe = (): void => undefined;
    const stalled = new Promise<never>((_resolve, reject) => {
      unsubscribe = watchdog.onStall(() => reject(unavailable(MESSAGE, undefined)));
    });
    try {
      return await Promise.race([next(req), stalled]);
    } finally {
      unsubscribe();
    }
  };
}
