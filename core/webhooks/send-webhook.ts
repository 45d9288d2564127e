import { request } from "node:https";
import { createSecureContext, rootCertificates } from "node:tls";
import { createOutboundGuard, OutboundRefused, type Resolve } from "../../lib/net/outbound-guard.js";
import { DELIVERY_TIMEOUT_MS } from "./delivery-rules.js";

/** What one attempt came to: a 2xx, another status, or an error without status. */
export type AttemptOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status?: number; readonly error: string };

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type SendWebhook = (request: WebhookRequest) => Promise<AttemptOutcome>;

export interface WebhookSenderOptions {
  /** Connect to private, loopback and link-local addresses too (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  readonly allowPrivateTargets: boolean;
  /** PEM certificates trusted besides the public roots (WEBHOOK_CA_FILE). */
  readonly extraCaCertificates?: string | undefined;
  /** Default 15 s (spec "Delivery rules"); tests of crash recovery shorten it. */
  readonly timeoutMs?: number;
  /** How target names resolve; default the system's (tests feed their own answers). */
  readonly resolve?: Resolve;
}

export interface WebhookSender {
  readonly send: SendWebhook;
  close(): void;
}

/**
 * POSTs webhook bodies over HTTPS (spec "Delivery"): every connection through the outbound guard
 * (lib/net/outbound-guard.ts: the address connected to is the address checked, so a name that now
 * resolves to a private address reaches nothing), no redirects followed (a 3xx is a failed attempt),
 * 15 s for the whole answer, TLS verified against the public roots plus configured extra CAs,
 * connections kept alive per target.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // One TLS context for every connection: passing `ca` per request would re-parse the roots for each
  // new socket and put the whole bundle into the agent's per-request connection key.
  const secureContext = options.extraCaCertificates
    ? createSecureContext({ ca: [...rootCertificates, options.extraCaCertificates] })
    : undefined;
  const guard = createOutboundGuard({
    allowPrivate: options.allowPrivateTargets,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const agent = guard.httpsAgent({
    keepAlive: true,
    maxSockets: 64,
    ...(secureContext ? { secureContext } : {}),
  });

  const send: SendWebhook = (webhook) => sendOnce(webhook, true);

  const sendOnce = (webhook: WebhookRequest, mayRetryStaleSocket: boolean): Promise<AttemptOutcome> =>
    new Promise<AttemptOutcome>((resolve) => {
      let url: URL;
      try {
        url = new URL(webhook.url);
      } catch {
        return resolve({ ok: false, error: "invalid target URL" });
      }
      if (url.protocol !== "https:") return resolve({ ok: false, error: "target URL is not https" });
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const req = request(url, {
        method: "POST",
        agent,
        headers: { ...webhook.headers, "Content-Length": String(Buffer.byteLength(webhook.body)) },
      });
      const timer = setTimeout(() => {
        finish({ ok: false, error: `no answer within ${timeoutMs / 1000} s` });
        req.destroy();
      }, timeoutMs);
      req.on("response", (res) => {
        const status = res.statusCode ?? 0;
        // The answer counts once complete (a receiver that stalls its body is a timeout); its content
        // is not used.
        res.on("data", () => undefined);
        res.on("end", () => {
          if (status >= 200 && status < 300) finish({ ok: true, status });
          else if (status >= 300 && status < 400)
            finish({ ok: false, status, error: "redirect not followed" });
          else finish({ ok: false, status, error: `answered ${status}` });
        });
        res.on("error", (error) => finish({ ok: false, status, error: error.message }));
      });
      req.on("error", (error) => {
        // A kept-alive socket the receiver closed while idle fails before the request reaches it;
        // send once more on a new connection (Node's documented pattern), within the same attempt.
        const code = (error as NodeJS.ErrnoException).code;
        if (mayRetryStaleSocket && req.reusedSocket && code === "ECONNRESET" && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve(sendOnce(webhook, false));
          return;
        }
        const message =
          error instanceof OutboundRefused ? `refused target: ${error.message}` : transportError(error);
        finish({ ok: false, error: message });
      });
      req.end(webhook.body);
    });

  return { send, close: () => agent.destroy() };
}

function transportError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}: ${error.message}` : error.message;
}
