import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { RetryInfoSchema } from "./gen/memory/v1/errors_pb.js";

/**
 * Retries of calls the server refused for now: RESOURCE_EXHAUSTED (a rate limit, HTTP 429) and
 * UNAVAILABLE (a dependency or the connection is down, HTTP 503). The service's contract tells
 * clients to wait the Retry-After it sends, with jitter, and to retry at most three times.
 */
export interface RetryOptions {
  /** Retries after the first attempt; the contract's maximum and the default is 3. */
  readonly maxRetries?: number;
  /** First backoff when the server names no delay (UNAVAILABLE); doubles per retry. Default 250 ms. */
  readonly baseDelayMs?: number;
  /**
   * The longest wait the client accepts. A Retry-After above it fails the call at once with the
   * server's error instead of blocking the caller for minutes. Default 60 s.
   */
  readonly maxDelayMs?: number;
}

export const DEFAULT_MAX_RETRIES = 3;

/** Seconds to wait from the error: the RetryInfo detail, else a Retry-After header; undefined if neither. */
export function retryAfterSeconds(error: ConnectError): number | undefined {
  const [info] = error.findDetails(RetryInfoSchema);
  if (info && info.retryAfterSeconds > 0) return info.retryAfterSeconds;
  const header = error.metadata.get("retry-after");
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim());
  return undefined;
}

/** Whether the error is one a later attempt may not get: a rate limit or a transient outage. */
export function isRetryable(error: ConnectError): boolean {
  if (error.code === Code.Unavailable) return true;
  // A plan's memory quota is FAILED_PRECONDITION; RESOURCE_EXHAUSTED without a delay is not a rate
  // limit we know how to wait for (e.g. a message too large for the transport).
  return error.code === Code.ResourceExhausted && retryAfterSeconds(error) !== undefined;
}

/**
 * The wait before retry number `retry` (1-based): the server's Retry-After plus up to 20 % (at
 * least 100 ms, at most 1 s) of random jitter, so clients throttled together do not return together;
 * without one, exponential backoff with full jitter between half and all of base × 2^(retry-1).
 */
export function retryDelayMs(
  error: ConnectError,
  retry: number,
  baseDelayMs = 250,
  random = Math.random,
): number {
  const seconds = retryAfterSeconds(error);
  if (seconds !== undefined) {
    const wait = seconds * 1000;
    return wait + random() * Math.min(1000, Math.max(100, wait * 0.2));
  }
  const cap = baseDelayMs * 2 ** (retry - 1);
  return cap / 2 + random() * (cap / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The retry interceptor. Unary calls only: a server stream that failed half-way cannot be replayed
 * without the caller knowing. Writes are safe to retry: StoreMemory returns the stored memory with
 * unchanged=true for the same title and content, and a repeated UpdateFact fails with
 * FAILED_PRECONDITION (superseded) naming the version the first attempt created.
 */
export function retryInterceptor(options: RetryOptions = {}): Interceptor {
  const maxRetries = Math.max(0, Math.min(options.maxRetries ?? DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRIES));
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return (next) => async (request) => {
    if (request.stream) return next(request);
    for (let retry = 1; ; retry++) {
      try {
        return await next(request);
      } catch (caught) {
        const error = ConnectError.from(caught);
        if (retry > maxRetries || !isRetryable(error) || request.signal.aborted) throw caught;
        const delay = retryDelayMs(error, retry, options.baseDelayMs);
        if (delay > maxDelayMs) throw caught;
        await sleep(delay, request.signal);
      }
    }
  };
}
