import { type LookupAddress, lookup } from "node:dns";
import { lookup as lookupAsync } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { Agent, fetch as UndiciFetch } from "undici";

/**
 * The SSRF guard for every outbound call to a URL a tenant gave us (BYOK provider base URLs today,
 * webhooks next): such a URL must not reach loopback, private, link-local, CGNAT, multicast or
 * reserved addresses of the operator's network.
 *
 * Checking when the URL is stored is not enough — a name can resolve to a public address then and
 * to 127.0.0.1 a minute later (DNS rebinding). `guardedFetch` therefore checks at connect time: the
 * connection's own DNS lookup is replaced by one that refuses blocked addresses, so the address
 * checked is the address connected to (no second lookup to race).
 */

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
  ["64:ff9b::", 96],
  ["2002::", 16],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv6");
}

/** The error code of a connection refused by the guard (in `cause` of the fetch error). */
export const BLOCKED_ADDRESS_CODE = "ERR_OUTBOUND_ADDRESS_BLOCKED";

/**
 * Whether an address is one a tenant-given URL must not reach. IPv4-mapped IPv6 (::ffff:127.0.0.1) is
 * judged as the IPv4 address it carries — not as a /96 rule, which BlockList would also apply to
 * every plain IPv4 address and so block the whole public internet.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, "ipv4");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return BLOCKED.check(mapped, "ipv4");
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (mappedHex?.[1] !== undefined && mappedHex[2] !== undefined) {
    const high = Number.parseInt(mappedHex[1], 16);
    const low = Number.parseInt(mappedHex[2], 16);
    return BLOCKED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, "ipv4");
  }
  return BLOCKED.check(address, "ipv6");
}

function blockedError(host: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `${host} resolves to a private, loopback or link-local address`,
  );
  error.code = BLOCKED_ADDRESS_CODE;
  return error;
}

/**
 * Why a tenant-given URL may not be used, or undefined when it may: https only (http too when private
 * addresses are allowed, for Ollama / TEI / vLLM on the operator's own network), no credentials, query
 * or fragment, and — unless `allowPrivate` — every address the host resolves to now is public.
 */
export async function outboundUrlProblem(url: string, allowPrivate: boolean): Promise<string | undefined> {
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
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookupAsync(host, { all: true })).map((a) => a.address);
  } catch {
    return `host ${host} does not resolve`;
  }
  return addresses.some(isBlockedAddress) ? "points to a private, loopback or link-local address" : undefined;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** dns.lookup for the connection: resolves as usual and refuses the host if any address is blocked. */
function guardedLookup(isBlocked: (address: string) => boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0 || addresses.some((a) => isBlocked(a.address))) {
        return callback(blockedError(hostname), []);
      }
      if ((options as { all?: boolean }).all === true) return callback(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? "", first?.family);
    });
  };
}

export interface GuardedResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface GuardedRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly signal: AbortSignal;
}

/**
 * fetch for tenant-given URLs: only public addresses, checked on every connection (an IP literal is
 * checked before the request; a name at its lookup). Redirects are not followed (a public host could
 * redirect to a private one). A refused connection rejects with a TypeError whose `cause.code` is
 * BLOCKED_ADDRESS_CODE.
 */
export const guardedFetch = createGuardedFetch(isBlockedAddress);

/** guardedFetch with another notion of "blocked" (tests exercise the allowed path on loopback). */
export function createGuardedFetch(
  isBlocked: (address: string) => boolean,
): (url: string, init: GuardedRequest) => Promise<GuardedResponse> {
  // One keep-alive pool per guard, created on first use — and undici (95 modules, ≈ 3.5 MB of heap)
  // loaded then too: an instance that never calls out never holds it.
  let pool: Promise<{ agent: Agent; fetch: typeof UndiciFetch }> | undefined;
  return async (url, init) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0 && isBlocked(host)) {
      throw new TypeError("fetch failed", { cause: blockedError(host) });
    }
    pool ??= import("undici").then((undici) => ({
      agent: new undici.Agent({ connect: { lookup: guardedLookup(isBlocked) as never } }),
      fetch: undici.fetch,
    }));
    const { agent, fetch } = await pool;
    return fetch(url, { ...init, redirect: "manual", dispatcher: agent });
  };
}
