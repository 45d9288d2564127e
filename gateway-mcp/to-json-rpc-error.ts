import { Code } from "@connectrpc/connect";
import { planGateBody, readErrorDetails } from "../gateway-kit/error-details.js";
import { ErrorReason } from "../gen/memory/v1/errors_pb.js";
import { ScopeSchema } from "../gen/memory/v1/tenancy_service_pb.js";
import { enumWords } from "../lib/proto-enum-words.js";
import { JSON_RPC_CODES, type JsonRpcCode } from "./json-rpc-codes.js";
import { JsonRpcError } from "./json-rpc-error.js";

/**
 * The MCP gateway's one table from gRPC code to JSON-RPC code (spec "JSON-RPC error codes";
 * docs/mcp.md "Errors"). Out-of-range arguments that core's protovalidate rejects arrive as
 * INVALID_ARGUMENT or OUT_OF_RANGE and become -32602 like the gateway's own schema check.
 */
export const JSON_RPC_CODE_BY_GRPC_CODE: Readonly<Record<Code, JsonRpcCode>> = {
  [Code.Canceled]: JSON_RPC_CODES.internalError,
  [Code.Unknown]: JSON_RPC_CODES.internalError,
  [Code.InvalidArgument]: JSON_RPC_CODES.invalidParams,
  [Code.DeadlineExceeded]: JSON_RPC_CODES.unavailable,
  [Code.NotFound]: JSON_RPC_CODES.notFound,
  [Code.AlreadyExists]: JSON_RPC_CODES.conflict,
  [Code.PermissionDenied]: JSON_RPC_CODES.scopeMissing,
  [Code.ResourceExhausted]: JSON_RPC_CODES.rateLimited,
  [Code.FailedPrecondition]: JSON_RPC_CODES.conflict,
  [Code.Aborted]: JSON_RPC_CODES.conflict,
  [Code.OutOfRange]: JSON_RPC_CODES.invalidParams,
  [Code.Unimplemented]: JSON_RPC_CODES.internalError,
  [Code.Internal]: JSON_RPC_CODES.internalError,
  [Code.Unavailable]: JSON_RPC_CODES.unavailable,
  [Code.DataLoss]: JSON_RPC_CODES.internalError,
  [Code.Unauthenticated]: JSON_RPC_CODES.unauthenticated,
};

/**
 * Reasons (ErrorInfo.reason_code) that pick a different code than their gRPC code; undefined: the
 * gRPC code decides. content_required and too_large arrive as INVALID_ARGUMENT but the spec files
 * them under -32603, told apart by data.reason; the plan gate arrives as FAILED_PRECONDITION. Every
 * ErrorReason is listed, so a reason added to the proto does not compile until it has been decided.
 */
export const JSON_RPC_CODE_BY_REASON: Readonly<Record<ErrorReason, JsonRpcCode | undefined>> = {
  [ErrorReason.UNSPECIFIED]: undefined,
  [ErrorReason.VALIDATION]: undefined,
  [ErrorReason.CONTENT_REQUIRED]: JSON_RPC_CODES.internalError,
  [ErrorReason.TOO_LARGE]: JSON_RPC_CODES.internalError,
  [ErrorReason.NOT_FOUND]: JSON_RPC_CODES.notFound,
  [ErrorReason.SUPERSEDED]: undefined,
  [ErrorReason.CONFLICT]: undefined,
  [ErrorReason.UNAUTHENTICATED]: undefined,
  [ErrorReason.PERMISSION_DENIED]: undefined,
  [ErrorReason.ONBOARDING_REQUIRED]: undefined,
  [ErrorReason.PLAN_UPGRADE_REQUIRED]: JSON_RPC_CODES.planUpgradeRequired,
  [ErrorReason.RATE_LIMITED]: JSON_RPC_CODES.rateLimited,
  [ErrorReason.PAYMENTS_NOT_CONFIGURED]: undefined,
  [ErrorReason.INGEST_FAILED]: JSON_RPC_CODES.internalError,
  [ErrorReason.PROVIDER_ERROR]: JSON_RPC_CODES.providerError,
  [ErrorReason.UNAVAILABLE]: undefined,
  [ErrorReason.INTERNAL]: undefined,
  // OAuth refusals: INVALID_ARGUMENT (400) or UNAUTHENTICATED (401, invalid_client) decide; the
  // OAuth endpoints answer them in the RFC shape (gateway-oauth/oauth-errors.ts).
  [ErrorReason.OAUTH_REJECTED]: undefined,
  // File uploads are not an MCP tool; should one come, INVALID_ARGUMENT (-32602) says it.
  [ErrorReason.UNSUPPORTED_MEDIA_TYPE]: undefined,
  [ErrorReason.NO_TEXT]: undefined,
  // service_fetch_web_page: the page's server failed or was too slow — UNAVAILABLE / DEADLINE_EXCEEDED
  // decide (-32006); data.reason tells which.
  [ErrorReason.FETCH_FAILED]: undefined,
  [ErrorReason.FETCH_TIMEOUT]: undefined,
};

/** Scopes in proto order (read, write, admin), as the challenge lists them. */
const SCOPE_ORDER = enumWords(ScopeSchema);

/** "DeadlineExceeded" → "deadline_exceeded": the reason reported when core attached none. */
function reasonOfCode(code: Code): string {
  return (Code[code] ?? "unknown").replace(/(?<=[a-z])(?=[A-Z])/g, "_").toLowerCase();
}

/**
 * A failed core call as a JSON-RPC error. The HTTP status stays 200 (the request was well-formed
 * and answered) except where the spec puts it on the HTTP response: 401 with WWW-Authenticate for
 * missing or invalid tokens, 403 for an OAuth token without the scope, 429 with Retry-After for
 * rate limits.
 */
export function toJsonRpcError(error: unknown): JsonRpcError {
  const details = readErrorDetails(error);
  const code = JSON_RPC_CODE_BY_REASON[details.reasonCode] ?? JSON_RPC_CODE_BY_GRPC_CODE[details.code];
  const reason = details.reason ?? reasonOfCode(details.code);
  if (code === JSON_RPC_CODES.planUpgradeRequired && details.planGate) {
    // Spec "Plan-gate error body (HTTP 402)": on MCP the same body travels in data.
    return new JsonRpcError(code, details.message, { data: planGateBody(details.planGate) });
  }
  const data: Record<string, unknown> = { reason };
  if (details.field !== undefined) data.field = details.field;
  if (code === JSON_RPC_CODES.unauthenticated) {
    return new JsonRpcError(code, details.message, {
      data,
      httpStatus: 401,
      headers: { "www-authenticate": 'Bearer realm="memory-service"' },
    });
  }
  if (code === JSON_RPC_CODES.scopeMissing && details.metadata.credential === "oauth") {
    // An OAuth access token short of a scope: HTTP 403, so the client can step up (MCP authorization
    // 2025-11-25 "Runtime Insufficient Scope Errors"); the gateway adds the WWW-Authenticate
    // challenge. It asks for what the token has plus what the call needs, so a client that
    // re-authorizes with it loses nothing. API tokens keep the spec's -32002 on HTTP 200.
    const needed = details.metadata.required_scope;
    const granted = (details.metadata.granted_scopes ?? "").split(" ").filter((s) => s !== "");
    if (needed !== undefined) {
      data.required_scope = needed;
      data.scope = SCOPE_ORDER.filter((s) => s === needed || granted.includes(s)).join(" ");
      return new JsonRpcError(code, details.message, { data, httpStatus: 403 });
    }
  }
  if (code === JSON_RPC_CODES.rateLimited) {
    const retryAfter = details.retryAfterSeconds ?? 60;
    data.retry_after_seconds = retryAfter;
    return new JsonRpcError(code, details.message, {
      data,
      httpStatus: 429,
      headers: { "retry-after": String(retryAfter) },
    });
  }
  return new JsonRpcError(code, details.message, { data });
}
