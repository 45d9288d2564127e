/**
 * Why a model provider failed. Core maps every ProviderError to one answer (spec, error codes: JSON-RPC
 * -32000 "provider error"; REST 502-ish), and decides by `retryable` whether a job should try again later.
 */
export type ProviderErrorReason =
  /** No answer within the timeout. */
  | "timeout"
  /** 429 after all retries. */
  | "rate_limited"
  /** 5xx after all retries. */
  | "unavailable"
  /** Connection refused, reset, DNS … after all retries. */
  | "transport"
  /** 401 / 403: the key is missing, wrong or lacks access. */
  | "unauthorized"
  /** Another 4xx: the provider refused the request (unknown model, input too long …). */
  | "rejected"
  /** The answer was not what the API promises (not JSON, wrong shape, wrong count or dimension). */
  | "bad_response"
  /** A local model directory or file is missing or unusable. */
  | "model_invalid"
  /** A local model failed while running. */
  | "inference_failed"
  /** The worker pool's queue is full. */
  | "overloaded"
  /** The provider was closed. */
  | "closed";

const RETRYABLE: ReadonlySet<ProviderErrorReason> = new Set([
  "timeout",
  "rate_limited",
  "unavailable",
  "transport",
  "overloaded",
]);

export interface ProviderErrorDetails {
  readonly reason: ProviderErrorReason;
  /** Which provider failed, e.g. "http:bge-m3" — never a URL with credentials, never a key. */
  readonly provider: string;
  /** HTTP status of the last answer, when there was one. */
  readonly status?: number;
  /**
   * The provider's own words ("HTTP 401: {\"detail\":\"Provided API key is invalid.\"}"), redacted and
   * without any URL: safe to show the tenant in a 502 / -32000 answer.
   */
  readonly providerText?: string;
}

/**
 * A model provider failed. The message is safe to log and to show an operator: HTTP providers build it
 * from their own words plus redacted response snippets, never from request headers, so an API key cannot
 * appear in it.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly reason: ProviderErrorReason;
  readonly provider: string;
  readonly status: number | undefined;
  readonly providerText: string | undefined;

  constructor(message: string, details: ProviderErrorDetails) {
    super(message);
    this.reason = details.reason;
    this.provider = details.provider;
    this.status = details.status;
    this.providerText = details.providerText;
  }

  /** Whether trying again later may succeed (overload, rate limit, outage), as opposed to a bad request or key. */
  get retryable(): boolean {
    return RETRYABLE.has(this.reason);
  }
}
