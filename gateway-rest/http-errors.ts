import { Code } from "@connectrpc/connect";
import { type ErrorDetails, planGateBody, readErrorDetails } from "../edge/error-details.js";

/** An HTTP answer for a failed core call. */
export interface HttpError {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

/**
 * The REST gateway's one table from gRPC code to HTTP status (spec "HTTP status codes").
 * FAILED_PRECONDITION is 409: core uses it for state conflicts such as updating a superseded version.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<Code, number>> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 409,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

/** Reasons that pick a more precise status than their code. */
const HTTP_STATUS_BY_REASON: Readonly<Record<string, number>> = {
  plan_upgrade_required: 402,
  too_large: 413,
  unprocessable: 422,
  provider_error: 502,
  payments_not_configured: 503,
};

export function toHttpError(error: unknown): HttpError {
  const details: ErrorDetails = readErrorDetails(error);
  const status =
    (details.reason && HTTP_STATUS_BY_REASON[details.reason]) || HTTP_STATUS_BY_CODE[details.code];
  const headers: Record<string, string> = {};
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="memory-service"';
  if (status === 429) headers["retry-after"] = String(details.retryAfterSeconds ?? 60);
  if (status === 402 && details.planGate) return { status, body: planGateBody(details.planGate), headers };
  return { status, body: { error: details.message }, headers };
}
