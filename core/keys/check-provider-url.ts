import { outboundUrlProblem } from "../../lib/net/outbound-guard.js";

/**
 * Why a base URL given with a key may not be used, or undefined when it may (lib/net/outbound-guard.ts):
 * checked when the key is stored and before each round trip test; every provider call is guarded again
 * at connect time (DNS rebinding) unless PROVIDER_ALLOW_PRIVATE_URLS.
 */
export function providerUrlProblem(url: string, allowPrivate: boolean): Promise<string | undefined> {
  return outboundUrlProblem(url, allowPrivate);
}
