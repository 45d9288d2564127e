import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent, request } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createSecureContext, rootCertificates } from "node:tls";
import { DELIVERY_TIMEOUT_MS } from "./delivery-rules.js";
import { refusedAddressReason } from "./target-address.js";

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
  /** Connect to private, loopback, link-local and multicast addresses too (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  readonly allowPrivateTargets: boolean;
  /** PEM certificates trusted besides the public roots (WEBHOOK_CA_FILE). */
  readonly extraCaCertificates?: string | undefined;
  /** Default 15 s (spec "Delivery rules"); tests of crash recovery shorten it. */
  readonly timeoutMs?: number;
}

export interface WebhookSender {
  readonly send: SendWebhook;
  close(): void;
}

class RefusedTarget extends Error {}

/**
 * Resolves like dns.lookup but fails when any address of the name is refused, so the socket can only
 * connect to an address that passed the guard (the check and the connect use the same answer).
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 4);
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const reason = refusedAddressReason(address);
          if (reason)
            return callback(new RefusedTarget(`${hostname} resolves to ${address} (${reason})`), "", 4);
        }
      }
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), "", 4);
      // Node asks for every address (autoSelectFamily) or for one; answer in the form it asked.
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs webhook bodies over HTTPS (spec "Delivery"): no redirects followed (a 3xx is a failed
 * attempt), 15 s for the whole answer, TLS verified against the public roots plus configured extra
 * CAs, connections kept alive per target.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  // One TLS context for every connection: passing `ca` per request would re-parse the roots for each
  // new socket and put the whole bundle into the agent's per-request connection key.
  const secureContext = options.extraCaCertificates
    ? createSecureContext({ ca: [...rootCertificates, options.extraCaCertificates] })
    : undefined;
  const lookup = guardedLookup(options.allowPrivateTargets);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 64,
    ...(secureContext ? { secureContext } : {}),
    lookup,
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
      const host = url.hostname.replace(/^\[|\]$/g, "");
      // An IP literal is connected to without a lookup: check it here.
      if (isIP(host) && !options.allowPrivateTargets) {
        const reason = refusedAddressReason(host);
        if (reason) return resolve({ ok: false, error: `refused target ${host} (${reason})` });
      }
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
          error instanceof RefusedTarget ? `refused target: ${error.message}` : transportError(error);
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
