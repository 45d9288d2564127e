import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ErrorInfoSchema,
  ErrorReason,
  ErrorReasonSchema,
  type PlanGate,
  PlanGateSchema,
  RetryInfoSchema,
} from "../gen/memory/v1/errors_pb.js";
import { enumWord } from "../lib/proto-enum-words.js";

/**
 * Core's errors: a ConnectError with the right Code, a message the user can act on, and details
 * (ErrorInfo, PlanGate, RetryInfo) the gateways read to choose HTTP status and JSON-RPC code. This
 * module only builds them; each gateway maps them in its one error-mapping module.
 */

/** A reason core sends: any value of the proto enum but UNSPECIFIED. */
export type SentErrorReason = Exclude<ErrorReason, ErrorReason.UNSPECIFIED>;

/**
 * ErrorInfo.reason, the word clients have always read: the enum value's name without its prefix, in
 * lower case (ERROR_REASON_CONTENT_REQUIRED → "content_required"), read from the descriptor.
 */
export const errorReasonWord = (reason: SentErrorReason): string => enumWord(ErrorReasonSchema, reason);

function errorInfo(reason: SentErrorReason, field = "", metadata: Record<string, string> = {}) {
  return create(ErrorInfoSchema, { reason: errorReasonWord(reason), reasonCode: reason, field, metadata });
}

export function coreError(
  code: Code,
  reason: SentErrorReason,
  message: string,
  extra: { field?: string; metadata?: Record<string, string>; cause?: unknown } = {},
): ConnectError {
  const info = errorInfo(reason, extra.field, extra.metadata);
  return new ConnectError(message, code, undefined, [{ desc: ErrorInfoSchema, value: info }], extra.cause);
}

export const invalidArgument = (field: string, message: string) =>
  coreError(Code.InvalidArgument, ErrorReason.VALIDATION, message, { field });

export const notFound = (what: string) =>
  coreError(Code.NotFound, ErrorReason.NOT_FOUND, `${what} not found`);

export const contentRequired = (field = "content") =>
  coreError(
    Code.InvalidArgument,
    ErrorReason.CONTENT_REQUIRED,
    `${field} is required and must not be empty`,
    {
      field,
    },
  );

export const tooLarge = (field: string, limit: string, hint: string) =>
  coreError(Code.InvalidArgument, ErrorReason.TOO_LARGE, `${field} is larger than ${limit}; ${hint}`, {
    field,
  });

/** A file of a type the service does not read, or not readable as its type (REST 415). */
export const unsupportedMediaType = (message: string) =>
  coreError(Code.InvalidArgument, ErrorReason.UNSUPPORTED_MEDIA_TYPE, message, { field: "data" });

/** A file that was read but holds no text (a PDF without a text layer; REST 422). */
export const noText = (message: string) =>
  coreError(Code.InvalidArgument, ErrorReason.NO_TEXT, message, { field: "data" });

export const unauthenticated = (message = "missing or invalid credentials") =>
  coreError(Code.Unauthenticated, ErrorReason.UNAUTHENTICATED, message);

export const permissionDenied = (message: string) =>
  coreError(Code.PermissionDenied, ErrorReason.PERMISSION_DENIED, message);

/** A dependency (database, mail) cannot be reached: UNAVAILABLE, which tells clients to retry. */
export const unavailable = (message: string, cause: unknown) =>
  coreError(Code.Unavailable, ErrorReason.UNAVAILABLE, message, { cause });

/** A bug: INTERNAL without internals (they go to the log); retrying will not help. */
export const internalError = (cause: unknown) =>
  coreError(Code.Internal, ErrorReason.INTERNAL, "internal error", { cause });

export function planGateError(gate: Omit<PlanGate, "$typeName" | "$unknown">): ConnectError {
  const value = create(PlanGateSchema, gate);
  const info = errorInfo(ErrorReason.PLAN_UPGRADE_REQUIRED);
  return new ConnectError(gate.message || "plan upgrade required", Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: info },
    { desc: PlanGateSchema, value },
  ]);
}

export function rateLimited(retryAfterSeconds: number): ConnectError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  const info = errorInfo(ErrorReason.RATE_LIMITED);
  const retry = create(RetryInfoSchema, { retryAfterSeconds: seconds });
  return new ConnectError(`rate limit exceeded; retry in ${seconds} s`, Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: info },
    { desc: RetryInfoSchema, value: retry },
  ]);
}
