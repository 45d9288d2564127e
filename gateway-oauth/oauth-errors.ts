import { Code } from "@connectrpc/connect";
import { readErrorDetails } from "../gateway-kit/error-details.js";
import { ErrorReason } from "../gen/memory/v1/errors_pb.js";

/** An OAuth error answer: `{error, error_description}` (RFC 6749 5.2, RFC 7591 3.2.2, RFC 7009 2.2.1). */
export interface OAuthErrorAnswer {
  readonly status: number;
  readonly error: string;
  readonly description: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A refusal the edge decides itself, before core is asked (missing or malformed parameters). */
export class OAuthRequestError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * The one mapping of failures at the OAuth endpoints to RFC error answers. Core's OAuth refusals
 * carry the RFC code (ErrorInfo.metadata.oauth_error); rate limits are 429 with Retry-After; an
 * unreachable core is temporarily_unavailable (503); anything unmodelled is server_error (500),
 * which the caller logs. Never a stack trace, never a token.
 */
export function toOAuthError(error: unknown): OAuthErrorAnswer {
  if (error instanceof OAuthRequestError) {
    return { status: error.status, error: error.error, description: error.message, headers: {} };
  }
  const details = readErrorDetails(error);
  const code = details.metadata.oauth_error;
  if (details.reasonCode === ErrorReason.OAUTH_REJECTED && code) {
    const status = code === "invalid_client" ? 401 : 400;
    return { status, error: code, description: details.message, headers: {} };
  }
  switch (details.code) {
    case Code.InvalidArgument:
    case Code.OutOfRange:
      return { status: 400, error: "invalid_request", description: details.message, headers: {} };
    case Code.Unauthenticated:
      return { status: 401, error: "invalid_client", description: details.message, headers: {} };
    case Code.ResourceExhausted: {
      const seconds = String(details.retryAfterSeconds ?? 60);
      return {
        status: 429,
        error: "too_many_requests",
        description: details.message,
        headers: { "retry-after": seconds },
      };
    }
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return { status: 503, error: "temporarily_unavailable", description: details.message, headers: {} };
    case Code.FailedPrecondition:
      return { status: 400, error: "invalid_grant", description: details.message, headers: {} };
    default:
      return { status: 500, error: "server_error", description: "internal error", headers: {} };
  }
}
