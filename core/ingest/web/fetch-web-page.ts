import {
  BLOCKED_ADDRESS_CODE,
  type GuardedResponse,
  type OutboundGuard,
} from "../../../lib/net/outbound-guard.js";

/** Bounds of one page fetch (docs/ingest.md "Web pages"; WEB_FETCH_* in config). */
export interface WebFetchLimits {
  /** For the whole fetch: every hop, the name lookups and the body. */
  readonly timeoutMs: number;
  /** The body is read as a stream and the fetch aborted past this many bytes. */
  readonly maxBytes: number;
  readonly maxRedirects: number;
}

export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = {
  timeoutMs: 15_000,
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
};

/** What a fetch brought back: the page's bytes and what its server said they are. */
export interface FetchedPage {
  /** The URL after redirects, without its fragment. */
  readonly url: string;
  /** The Content-Type header as sent ("" when absent). */
  readonly contentType: string;
  readonly body: Uint8Array;
}

/**
 * Why a fetch failed; fetch-web-page-document.ts turns each kind into its error once:
 * refused → validation (400), failed → fetch_failed (502), timeout → fetch_timeout (504),
 * too_large → too_large (413).
 */
export type WebFetchFailureKind = "refused" | "failed" | "timeout" | "too_large";

export class WebFetchFailure extends Error {
  constructor(
    readonly kind: WebFetchFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "WebFetchFailure";
  }
}

const PROTOCOLS = ["http:", "https:"] as const;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  accept: "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.1",
  "user-agent": "memory-service web page fetcher",
};

const withoutFragment = (url: URL): string => {
  const copy = new URL(url.href);
  copy.hash = "";
  return copy.href;
};

/**
 * GET a user-given URL through the product's one outbound guard (lib/net/outbound-guard.ts, ADR
 * 0360): each hop's URL is checked (scheme, credentials, every address its name resolves to) before it
 * is requested, and the connection itself resolves through the guard's lookup, so the address it
 * connects to is the one checked — a name that re-resolves to 127.0.0.1 (DNS rebinding) is refused at
 * the socket. Redirects are followed here, by hand, each target checked like the first URL. One
 * deadline covers everything; the body is streamed and cut at `maxBytes`.
 */
export async function fetchWebPage(
  guard: OutboundGuard,
  url: string,
  limits: WebFetchLimits = DEFAULT_WEB_FETCH_LIMITS,
): Promise<FetchedPage> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const timedOut = () =>
    new WebFetchFailure("timeout", `the page did not arrive within ${limits.timeoutMs / 1000} s`);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const problem = await guard.urlProblem(current, { protocols: PROTOCOLS });
      if (controller.signal.aborted) throw timedOut();
      if (problem !== undefined) {
        const subject = hop === 0 ? "url" : `redirect to ${current}`;
        throw new WebFetchFailure(
          "refused",
          /^(is|must) /.test(problem) ? `${subject} ${problem}` : `${subject} refused: ${problem}`,
        );
      }
      const response = await request(guard, current, controller.signal).catch((error: unknown) => {
        throw controller.signal.aborted ? timedOut() : connectionFailure(current, error);
      });
      if (REDIRECTS.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get("location");
        if (location === null)
          throw new WebFetchFailure("failed", `${current} answered ${response.status} without a Location`);
        if (hop >= limits.maxRedirects) {
          throw new WebFetchFailure(
            "failed",
            `more than ${limits.maxRedirects} redirects (the last to ${location})`,
          );
        }
        const target = URL.parse(location, current);
        if (target === null)
          throw new WebFetchFailure(
            "failed",
            `${current} redirected to an invalid URL (${location.slice(0, 200)})`,
          );
        current = target.href;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new WebFetchFailure("failed", `${current} answered HTTP ${response.status}`);
      }
      const body = await readCapped(response, limits.maxBytes).catch((error: unknown) => {
        throw controller.signal.aborted
          ? timedOut()
          : error instanceof WebFetchFailure
            ? error
            : connectionFailure(current, error);
      });
      return {
        url: withoutFragment(new URL(current)),
        contentType: response.headers.get("content-type") ?? "",
        body,
      };
    }
  } finally {
    clearTimeout(timer);
  }
}

function request(guard: OutboundGuard, url: string, signal: AbortSignal): Promise<GuardedResponse> {
  return guard.fetch(withoutFragment(new URL(url)), { method: "GET", headers: HEADERS, signal });
}

/** A refused connection (the guard's lookup said no) is the user's URL's fault; anything else, the server's. */
function connectionFailure(url: string, error: unknown): WebFetchFailure {
  const causes: unknown[] = [];
  for (let e: unknown = error; e instanceof Error && causes.length < 5; e = e.cause) causes.push(e);
  const blocked = causes.find((e) => (e as { code?: unknown }).code === BLOCKED_ADDRESS_CODE);
  if (blocked instanceof Error) return new WebFetchFailure("refused", `${url} refused: ${blocked.message}`);
  const innermost = causes.at(-1);
  const detail =
    innermost instanceof Error ? ((innermost as { code?: string }).code ?? innermost.message) : "no answer";
  return new WebFetchFailure("failed", `${new URL(url).host} could not be reached (${detail})`);
}

async function readCapped(response: GuardedResponse, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new WebFetchFailure(
      "too_large",
      `the page is larger than ${maxBytes / (1024 * 1024)} MB (${maxBytes} bytes)`,
    );
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}
