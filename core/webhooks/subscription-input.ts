import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import { invalidArgument } from "../errors.js";
import { MAX_URL_LENGTH } from "./delivery-rules.js";
import { isWebhookEventKind, WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "./event-kinds.js";

/**
 * Checks a target URL with messages a user can act on (spec "Delivery rules" 5: HTTPS only). The
 * proto rules say the same for gRPC callers; these run for every caller so the wording is ours.
 */
export function checkTargetUrl(url: string): string {
  if (url.length > MAX_URL_LENGTH) {
    throw invalidArgument(
      "url",
      `url: is ${url.length} characters long; at most ${MAX_URL_LENGTH} are allowed`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidArgument("url", "url: is not a valid absolute URL");
  }
  if (parsed.protocol !== "https:") {
    throw invalidArgument("url", "url: must start with https:// (webhooks are only sent over HTTPS)");
  }
  if (parsed.username || parsed.password) {
    throw invalidArgument("url", "url: must not contain credentials; authenticate with the signature");
  }
  return url;
}

/**
 * Refuses a target the delivery could never reach (DESIGN "Outgoing webhooks": no private or loopback
 * targets), when it is stored rather than on every delivery; the sender checks again at connect time
 * (lib/net/outbound-guard.ts), since a name may resolve elsewhere later. Call after checkTargetUrl.
 */
export async function checkTargetAddress(guard: OutboundGuard, url: string): Promise<void> {
  const problem = await guard.hostProblem(new URL(url).hostname);
  if (problem === undefined) return;
  throw invalidArgument("url", `url: ${problem} (webhooks are only sent to public addresses)`);
}

export function checkEventKinds(kinds: readonly string[]): WebhookEventKind[] {
  if (kinds.length === 0) throw invalidArgument("event_kinds", "event_kinds: select at least one event kind");
  const unknown = kinds.find((k) => !isWebhookEventKind(k));
  if (unknown !== undefined) {
    throw invalidArgument(
      "event_kinds",
      `event_kinds: unknown event kind '${unknown}'; known kinds: ${WEBHOOK_EVENT_KINDS.join(", ")}`,
    );
  }
  return [...new Set(kinds as WebhookEventKind[])];
}
