import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Address ranges a tenant-given provider URL must not reach (SSRF): loopback, private, link-local … */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["::ffff:0:0", 96],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv6");
}

/**
 * Why a base URL given with a key may not be used, or undefined when it may: https only (http only
 * when private addresses are allowed, for Ollama / TEI / vLLM on the operator's own network), no
 * credentials or query in the URL, and — unless PROVIDER_ALLOW_PRIVATE_URLS — every address the host
 * resolves to is public. Checked when the key is stored and again before each round trip test.
 */
export async function providerUrlProblem(url: string, allowPrivate: boolean): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.protocol !== "https:" && !(allowPrivate && parsed.protocol === "http:")) {
    return "must use https";
  }
  if (parsed.username !== "" || parsed.password !== "") return "must not contain credentials";
  if (parsed.search !== "" || parsed.hash !== "") return "must not contain a query or fragment";
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch {
    return `host ${host} does not resolve`;
  }
  for (const { address, family } of addresses) {
    if (BLOCKED.check(address, family === 6 ? "ipv6" : "ipv4")) {
      return "points to a private, loopback or link-local address";
    }
  }
  return undefined;
}
