import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../config/logger.js";
import { ErrorReason } from "../gen/memory/v1/errors_pb.js";
import { coreError, internalError, invalidArgument, unavailable } from "./errors.js";
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
 * SQLSTATE class 22 (data exception: a value PostgreSQL cannot take — a malformed uuid, a number or
 * date out of range, a NUL byte): a request value that validation should have refused. Answered
 * INVALID_ARGUMENT rather than INTERNAL, so no input can produce a 500 (issue 45, item 4); logged, so
 * the missing validation is found and added where it belongs.
 */
function isDataException(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
}

/**
 * Any error thrown by core as the ConnectError a caller gets: errors core modelled pass through; a
 * failed model provider becomes UNAVAILABLE with reason provider_error (REST 502, JSON-RPC -32000); a
 * lost database UNAVAILABLE with reason unavailable (HTTP 503, retryable); anything else is a bug,
 * logged with its stack and answered INTERNAL with reason internal (not retryable) and without
 * internals. Shared by the interceptor and by batches, which answer an error per entry.
 */
export function toCoreError(error: unknown, logger: Logger, method: string): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof ProviderError) {
    // A model provider (embedding/rerank service) failed: spec "-32000 provider error", REST 502.
    logger.warn({ err: error, method, provider: error.provider, reason: error.reason }, "provider error");
    return coreError(
      Code.Unavailable,
      ErrorReason.PROVIDER_ERROR,
      `model provider failed: ${error.message}`,
      {
        metadata: { provider: error.provider, providerReason: error.reason },
        cause: error,
      },
    );
  }
  if (isConnectionError(error)) {
    logger.warn({ err: error, method }, "dependency unavailable");
    return unavailable("the database is unavailable; retry shortly", error);
  }
  if (isDataException(error)) {
    logger.warn({ err: error, method }, "a request value the database refused (validation missing)");
    return invalidArgument("", `a value in the request is not valid: ${error.message}`);
  }
  logger.error({ err: error, method }, "unhandled error in core");
  return internalError(error);
}

/** Outermost interceptor: every error leaves core as toCoreError made it. */
export function createErrorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      throw toCoreError(error, logger, `${req.service.typeName}/${req.method.name}`);
    }
  };
}
