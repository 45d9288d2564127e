import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyError } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { type ErrorDetails, planGateBody, readErrorDetails } from "../gateway-kit/error-details.js";
import { ErrorReason } from "../gen/memory/v1/errors_pb.js";

/** An HTTP answer for a failed request: status, JSON body and extra headers. */
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

/**
 * Reasons that pick a more precise status than their code (docs/rest.md "Errors"); undefined: the
 * code decides. Every ErrorReason is listed, so a reason added to the proto does not compile until
 * it has been decided here.
 */
export const HTTP_STATUS_BY_REASON: Readonly<Record<ErrorReason, number | undefined>> = {
  [ErrorReason.UNSPECIFIED]: undefined,
  [ErrorReason.VALIDATION]: undefined,
  [ErrorReason.CONTENT_REQUIRED]: undefined,
  [ErrorReason.TOO_LARGE]: 413,
  [ErrorReason.NOT_FOUND]: undefined,
  [ErrorReason.SUPERSEDED]: undefined,
  [ErrorReason.CONFLICT]: undefined,
  [ErrorReason.UNAUTHENTICATED]: undefined,
  [ErrorReason.PERMISSION_DENIED]: undefined,
  [ErrorReason.ONBOARDING_REQUIRED]: undefined,
  [ErrorReason.PLAN_UPGRADE_REQUIRED]: 402,
  [ErrorReason.RATE_LIMITED]: undefined,
  [ErrorReason.PAYMENTS_NOT_CONFIGURED]: 503,
  [ErrorReason.INGEST_FAILED]: undefined,
  [ErrorReason.PROVIDER_ERROR]: 502,
  [ErrorReason.UNAVAILABLE]: undefined,
  [ErrorReason.INTERNAL]: undefined,
  // OAuth refusals: INVALID_ARGUMENT (400) or UNAUTHENTICATED (401, invalid_client) decide; the
  // OAuth endpoints answer them in the RFC shape (gateway-oauth/oauth-errors.ts).
  [ErrorReason.OAUTH_REJECTED]: undefined,
  // File uploads (docs/ingest.md "Files"): another type or an unreadable file; a PDF without text.
  [ErrorReason.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorReason.NO_TEXT]: 422,
  // Web pages (docs/ingest.md "Web pages"): the page's server failed (UNAVAILABLE would say 503, but
  // this service is up: the other server is the bad gateway); no answer in time: DEADLINE_EXCEEDED, 504.
  [ErrorReason.FETCH_FAILED]: 502,
  [ErrorReason.FETCH_TIMEOUT]: undefined,
};

/** "new_title" → "newTitle": REST names fields in camelCase (spec "Naming convention"). */
export function camelCaseField(field: string): string {
  return field.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Core names the field in snake_case ("new_title: must not be empty"); REST callers sent camelCase. */
function restMessage(details: ErrorDetails): string {
  const { field, message } = details;
  if (!field || !message.startsWith(field)) return message;
  return camelCaseField(field) + message.slice(field.length);
}

/** Maps a failed core call (ConnectError or anything thrown on the way) to the REST answer. */
export function toHttpError(error: unknown, operation?: string): HttpError {
  const details: ErrorDetails = readErrorDetails(error);
  const status = HTTP_STATUS_BY_REASON[details.reasonCode] ?? HTTP_STATUS_BY_CODE[details.code];
  const headers: Record<string, string> = {};
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="memory-service"';
  if (status === 429) headers["retry-after"] = String(details.retryAfterSeconds ?? 60);
  if (status === 402 && details.planGate) return { status, body: planGateBody(details.planGate), headers };
  if (details.code === Code.Unimplemented) {
    // Routes exist before their core method lands; say so instead of a bare "not implemented".
    const what = operation ?? "this operation";
    return { status, body: { error: `${what} is not available yet: ${details.message}` }, headers };
  }
  return { status, body: { error: restMessage(details) }, headers };
}

/** One zod issue as the gateway reports it: "k: must be at most 25", "body: unknown field 'x'". */
interface ValidationIssue {
  readonly keyword: string;
  readonly instancePath: string;
  readonly message?: string | undefined;
  readonly params?: Record<string, unknown> | undefined;
}

function describeIssue(issue: ValidationIssue, context: string): string {
  const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
  const where = path || context;
  const params = issue.params ?? {};
  if (issue.keyword === "unrecognized_keys" && Array.isArray(params.keys)) {
    const keys = params.keys.map((k) => `'${String(k)}'`).join(", ");
    return `${where}: unknown field${params.keys.length > 1 ? "s" : ""} ${keys}`;
  }
  if (issue.keyword === "invalid_type" && /received undefined$/.test(issue.message ?? "")) {
    return path ? `${path}: is required` : `${context}: is required`;
  }
  return `${where}: ${issue.message ?? "invalid value"}`;
}

/** Fastify's parser errors, each turned into an answer that tells the caller what to fix. */
const PARSER_ERRORS: Readonly<Record<string, (error: FastifyError) => HttpError>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => plain(400, "body is not valid JSON"),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    plain(400, "body is empty but Content-Type is application/json; send a JSON object"),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    plain(415, "unsupported Content-Type; send the body as application/json"),
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    plain(413, "request body is larger than this endpoint accepts; split the content into several calls"),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => plain(400, "Content-Length does not match the body"),
};

function plain(status: number, error: string): HttpError {
  return { status, body: { error }, headers: {} };
}

export interface RequestErrorOptions {
  /** Status for a request that fails its schema: 400, or 422 where the spec says so. */
  readonly validationStatus: number;
  /** "POST /api/memory/recall": named in the 501 message. */
  readonly operation: string;
}

/**
 * The REST answer for anything a request can fail with: schema validation (the message names the
 * field), unparsable or oversized bodies, wrong content types, and failed core calls. Errors
 * that are not the caller's fault are 500 without internals (the caller is told the request id).
 */
export function toRequestError(error: unknown, options: RequestErrorOptions): HttpError {
  if (error instanceof ConnectError) {
    const mapped = toHttpError(error, options.operation);
    // A field core rejects is the same kind of failure as one the schema rejects: same status.
    const reason = readErrorDetails(error).reasonCode;
    if (
      mapped.status === 400 &&
      (reason === ErrorReason.VALIDATION || reason === ErrorReason.CONTENT_REQUIRED)
    ) {
      return { ...mapped, status: options.validationStatus };
    }
    return mapped;
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext ?? "body";
    const [first] = error.validation;
    return plain(options.validationStatus, first ? describeIssue(first, context) : `${context}: invalid`);
  }
  const fastifyError = error as Partial<FastifyError>;
  const parserError = fastifyError.code ? PARSER_ERRORS[fastifyError.code] : undefined;
  if (parserError) return parserError(fastifyError as FastifyError);
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return plain(status, fastifyError.message ?? "bad request");
  return plain(500, "internal error");
}
