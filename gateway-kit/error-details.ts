import { Code, ConnectError } from "@connectrpc/connect";
import {
  type ErrorInfo,
  ErrorInfoSchema,
  ErrorReason,
  ErrorReasonSchema,
  type PlanGate,
  PlanGateSchema,
  RetryInfoSchema,
} from "../gen/memory/v1/errors_pb.js";
import { enumValue } from "../lib/proto-enum-words.js";

/** What a gateway needs to answer a failed core call, read from the error's details. */
export interface ErrorDetails {
  readonly code: Code;
  readonly message: string;
  /** What the gateways' reason tables are keyed by; UNSPECIFIED when core attached no known reason. */
  readonly reasonCode: ErrorReason;
  /** ErrorInfo.reason as core sent it ("content_required"), for the wire (MCP data.reason). */
  readonly reason: string | undefined;
  readonly field: string | undefined;
  readonly metadata: Readonly<Record<string, string>>;
  readonly planGate: PlanGate | undefined;
  readonly retryAfterSeconds: number | undefined;
}

export function readErrorDetails(error: unknown): ErrorDetails {
  const ce = ConnectError.from(error);
  const [info] = ce.findDetails(ErrorInfoSchema);
  const [gate] = ce.findDetails(PlanGateSchema);
  const [retry] = ce.findDetails(RetryInfoSchema);
  // Errors core did not model (bugs, lost connections) must not leak internals to callers.
  const modelled = info !== undefined || ce.code !== Code.Unknown;
  return {
    code: ce.code,
    message: modelled ? ce.rawMessage : "internal error",
    reasonCode: info ? reasonCodeOf(info) : ErrorReason.UNSPECIFIED,
    reason: info?.reason || undefined,
    field: info?.field || undefined,
    metadata: info?.metadata ?? {},
    planGate: gate,
    retryAfterSeconds: retry?.retryAfterSeconds,
  };
}

/**
 * reason_code, or for a core older than reason_code its word mapped back through the enum
 * descriptor ("too_large" → TOO_LARGE, the inverse of core's errorReasonWord). A number or word
 * this gateway does not know yet is UNSPECIFIED: the gRPC code decides.
 */
function reasonCodeOf(info: ErrorInfo): ErrorReason {
  if (info.reasonCode !== ErrorReason.UNSPECIFIED && ErrorReasonSchema.value[info.reasonCode]) {
    return info.reasonCode;
  }
  return enumValue(ErrorReasonSchema, info.reason);
}

/** The plan-gate body of the spec (HTTP 402), camelCase, fields present only where set. */
export function planGateBody(gate: PlanGate): Record<string, unknown> {
  return {
    error: "plan_upgrade_required",
    feature: gate.feature,
    currentPlan: gate.currentPlan,
    requiredPlans: gate.requiredPlans,
    ...(gate.limit !== undefined ? { limit: Number(gate.limit) } : {}),
    ...(gate.used !== undefined ? { used: Number(gate.used) } : {}),
    ...(gate.message ? { message: gate.message } : {}),
    upgradeUrl: gate.upgradeUrl,
  };
}
