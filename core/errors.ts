import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ErrorInfoSchema,
  type PlanGate,
  PlanGateSchema,
  RetryInfoSchema,
} from "../gen/memory/v1/errors_pb.js";

/**
 * Core's errors: a ConnectError with the right Code, a message the user can act on, and details
 * (ErrorInfo, PlanGate, RetryInfo) the gateways read to choose HTTP status and JSON-RPC code. This
 * module only builds them; each gateway maps them in its one error-mapping module.
 */

export type ErrorReason =
  | "validation"
  | "content_required"
  | "too_large"
  | "ingest_failed"
  | "provider_error"
  | "plan_upgrade_required"
  | "rate_limited"
  | "not_found"
  | "superseded"
  | "conflict"
  | "unauthenticated"
  | "permission_denied"
  | "onboarding_required"
  | "payments_not_configured"
  | "unavailable";

export function coreError(
  code: Code,
  reason: ErrorReason,
  message: string,
  extra: { field?: string; metadata?: Record<string, string>; cause?: unknown } = {},
): ConnectError {
  const info = create(ErrorInfoSchema, {
    reason,
    field: extra.field ?? "",
    metadata: extra.metadata ?? {},
  });
  return new ConnectError(message, code, undefined, [{ desc: ErrorInfoSchema, value: info }], extra.cause);
}

export const invalidArgument = (field: string, message: string) =>
  coreError(Code.InvalidArgument, "validation", message, { field });

export const notFound = (what: string) => coreError(Code.NotFound, "not_found", `${what} not found`);

export const contentRequired = (field = "content") =>
  coreError(Code.InvalidArgument, "content_required", `${field} is required and must not be empty`, {
    field,
  });

export const tooLarge = (field: string, limit: string, hint: string) =>
  coreError(Code.InvalidArgument, "too_large", `${field} is larger than ${limit}; ${hint}`, { field });

export const unauthenticated = (message = "missing or invalid credentials") =>
  coreError(Code.Unauthenticated, "unauthenticated", message);

export const permissionDenied = (message: string) =>
  coreError(Code.PermissionDenied, "permission_denied", message);

export function planGateError(gate: Omit<PlanGate, "$typeName" | "$unknown">): ConnectError {
  const value = create(PlanGateSchema, gate);
  const info = create(ErrorInfoSchema, { reason: "plan_upgrade_required", field: "", metadata: {} });
  return new ConnectError(gate.message || "plan upgrade required", Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: info },
    { desc: PlanGateSchema, value },
  ]);
}

export function rateLimited(retryAfterSeconds: number): ConnectError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  const info = create(ErrorInfoSchema, { reason: "rate_limited", field: "", metadata: {} });
  const retry = create(RetryInfoSchema, { retryAfterSeconds: seconds });
  return new ConnectError(`rate limit exceeded; retry in ${seconds} s`, Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: info },
    { desc: RetryInfoSchema, value: retry },
  ]);
}
