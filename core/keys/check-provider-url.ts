import type { OutboundGuard } from "../../lib/net/outbound-guard.js";

/**
 * Why a base URL given with a key may not be used, or undefined when it may (lib/net/outbound-guard.ts):
 * checked when the key is stored and before each round trip test; every provider call is guarded again
 * at connect time (DNS rebinding). https only — http too when the guard allows private addresses
 * (PROVIDER_ALLOW_PRIVATE_URLS: Ollama, TEI or vLLM on the operator's own network). The query and
 * fragment are refused because the provider's API paths are appended to the base URL.
 */
export async function providerUrlProblem(url: string, guard: OutboundGuard): Promise<string | undefined> {
  const protocols = guard.allowPrivate ? ["https:", "http:"] : ["https:"];
  const problem = await guard.urlProblem(url, { protocols });
  if (problem !== undefined) return problem;
  const parsed = new URL(url);
  return parsed.search !== "" || parsed.hash !== "" ? "must not contain a query or fragment" : undefined;
}
