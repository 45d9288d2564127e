import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../config/logger.js";
import { coreError } from "./errors.js";
import { ProviderError } from "./models/provider-error.js";

const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/** True for "the database (or another dependency) cannot be reached", as opposed to a bug. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  // SQLSTATE class 08 (connection exception), 57P01..57P03 (admin shutdown, cannot connect now).
  return CONNECTION_ERRORS.has(code) || code.startsWith("08") || /^57P0[1-3]$/.test(code);
}

/**
 * Outermost interceptor: errors core modelled pass through; a failed model provider becomes
 * UNAVAILABLE with reason provider_error (REST 502, JSON-RPC -32000); a lost database UNAVAILABLE
 * (HTTP 503, retryable); anything else is a bug, logged with its stack and answered INTERNAL
 * without internals.
 */
export function createErrorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      const method = `${req.service.typeName}/${req.method.name}`;
      if (error instanceof ProviderError) {
        // A model provider (embedding/rerank service) failed: spec "-32000 provider error", REST 502.
        logger.warn({ err: error, method, provider: error.provider, reason: error.reason }, "provider error");
        throw coreError(Code.Unavailable, "provider_error", `model provider failed: ${error.message}`, {
          metadata: { provider: error.provider, providerReason: error.reason },
          cause: error,
        });
      }
      if (isConnectionError(error)) {
        logger.warn({ err: error, method }, "dependency unavailable");
        throw coreError(Code.Unavailable, "unavailable", "the database is unavailable; retry shortly", {
          cause: error,
        });
      }
      logger.error({ err: error, method }, "unhandled error in core");
      throw coreError(Code.Internal, "unavailable", "internal error", { cause: error });
    }
  };
}
