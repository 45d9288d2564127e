import { setTimeout as sleep } from "node:timers/promises";
import {
  BLOCKED_ADDRESS_CODE,
  type GuardedRequest,
  type GuardedResponse,
} from "../../../lib/net/outbound-guard.js";
import { ProviderError, type ProviderErrorReason } from "../provider-error.js";
import { describeEndpoint, redactSecret } from "./redact-secret.js";

export interface JsonEndpointOptions {
  /** Names the provider in errors, e.g. "http:bge-m3". */
  readonly provider: string;
  /** Sent as `Authorization: Bearer …`; never written into an error. */
  readonly apiKey?: string | undefined;
  /** Per attempt, including reading the body. */
  readonly timeoutMs: number;
  /** Further attempts after the first, for 429, 5xx, timeouts and transport errors. */
  readonly maxRetries: number;
  /** First backoff; doubles per retry with jitter, capped at `retryMaxMs`; a Retry-After header is honoured. */
  readonly retryBaseMs: number;
  readonly retryMaxMs?: number;
  /** Extra request headers (e.g. Azure's `api-key`); never written into an error. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Secrets besides `apiKey` to redact from error text. */
  readonly secrets?: readonly string[];
  /**
   * The HTTP client; default the global fetch (operator-configured URLs). Tenant-given URLs use
   * the outbound guard's fetch (lib/net/outbound-guard.ts), which never follows a redirect.
   */
  readonly fetch?: (url: string, init: GuardedRequest) => Promise<GuardedResponse>;
}

interface Failure {
  readonly reason: ProviderErrorReason;
  readonly retryable: boolean;
  readonly detail: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
}

const SNIPPET_CHARS = 200;

/**
 * POSTs JSON and returns the parsed JSON answer. Transient failures are retried with exponential backoff
 * (bounded by `maxRetries`); everything else — and the last transient failure — becomes a ProviderError.
 */
export async function postJson(url: string, body: unknown, options: JsonEndpointOptions): Promise<unknown> {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey !== undefined && options.apiKey !== "")
    headers.authorization = `Bearer ${options.apiKey}`;
  Object.assign(headers, options.headers);

  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptPost(url, payload, headers, options);
    if (!("reason" in outcome)) return outcome.json;
    const attempts = attempt + 1;
    if (!outcome.retryable || attempt >= options.maxRetries) {
      const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
      const message = `${options.provider}: POST ${describeEndpoint(url)} failed${tries}: ${outcome.detail}`;
      const secrets = [options.apiKey, ...(options.secrets ?? [])];
      const redacted = secrets.reduce(redactSecret, message);
      throw new ProviderError(redacted, {
        reason: outcome.reason,
        provider: options.provider,
        providerText: secrets.reduce(redactSecret, outcome.detail),
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
      });
    }
    await sleep(backoffMs(attempt, outcome.retryAfterMs, options));
  }
}

async function attemptPost(
  url: string,
  payload: string,
  headers: Record<string, string>,
  options: JsonEndpointOptions,
): Promise<{ json: unknown } | Failure> {
  let response: GuardedResponse;
  let text: string;
  const send = options.fetch ?? fetch;
  try {
    response = await send(url, {
      method: "POST",
      headers,
      body: payload,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    if (causeCode(error) === BLOCKED_ADDRESS_CODE) {
      const cause = (error as Error).cause as Error;
      return { reason: "rejected", retryable: false, detail: `refused: ${cause.message}` };
    }
    if (isTimeout(error)) {
      return { reason: "timeout", retryable: true, detail: `no answer within ${options.timeoutMs} ms` };
    }
    return { reason: "transport", retryable: true, detail: transportDetail(error) };
  }
  if (response.ok) {
    try {
      return { json: JSON.parse(text) as unknown };
    } catch {
      return {
        reason: "bad_response",
        retryable: false,
        detail: `answer is not JSON: ${snippet(text)}`,
        status: response.status,
      };
    }
  }
  const status = response.status;
  // The guard answers redirects instead of following them (a public host could send us to a private
  // one); a provider that redirects is misconfigured, not temporarily down.
  if (status >= 300 && status < 400) {
    return {
      reason: "rejected",
      retryable: false,
      detail: `HTTP ${status}: a redirect, not followed (give the final address as base URL)`,
      status,
    };
  }
  const detail = `HTTP ${status}${text.trim() === "" ? "" : `: ${snippet(text)}`}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    return {
      reason: "rate_limited",
      retryable: true,
      detail,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status === 408) return { reason: "timeout", retryable: true, detail, status };
  if (status >= 500) return { reason: "unavailable", retryable: true, detail, status };
  if (status === 401 || status === 403) return { reason: "unauthorized", retryable: false, detail, status };
  return { reason: "rejected", retryable: false, detail, status };
}

function backoffMs(attempt: number, retryAfterMs: number | undefined, options: JsonEndpointOptions): number {
  const cap = options.retryMaxMs ?? 10_000;
  const exponential = options.retryBaseMs * 2 ** attempt;
  // Jitter (50–100 %) keeps many clients that failed together from retrying together.
  const jittered = exponential * (0.5 + Math.random() * 0.5);
  return Math.min(cap, Math.max(jittered, retryAfterMs ?? 0));
}

function parseRetryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

function causeCode(error: unknown): string | undefined {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
}

/** undici reports "fetch failed" with the useful part (ECONNREFUSED …) in `cause`. */
function transportDetail(error: unknown): string {
  if (!(error instanceof Error)) return "request failed";
  const code = causeCode(error);
  return code === undefined ? error.message : `${error.message} (${code})`;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}
