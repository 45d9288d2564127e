import { lookup as lookupAll } from "node:dns/promises";
import type { Agent as HttpsAgent, AgentOptions as HttpsAgentOptions } from "node:https";
import type { LookupFunction } from "node:net";
import { createAddressPolicy } from "./address-policy.js";
import { createUndiciPool, GuardedHttpsAgent, guardedLookup } from "./guarded-connections.js";
import type { Resolve } from "./outbound-refused.js";

/**
 * The one SSRF guard for every URL a user gives us — webhook targets, provider key base URLs, the
 * client ID metadata documents of OAuth clients (ADR 0360, ADR 0400). It answers two questions with the same rules (`classifyAddress`):
 * - when a URL is stored: may it be contacted? (`urlProblem`, resolving the name now);
 * - when a connection is made: is this the address it may reach? A name can resolve to a public
 *   address when stored and to 127.0.0.1 a minute later (DNS rebinding), so the connection's own
 *   lookup is replaced by one that refuses a blocked answer — the address checked is the address
 *   connected to — and an IP literal, which sockets connect to without a lookup, is checked where
 *   the socket is created. Nothing reaches the network before the check.
 * Redirects are never followed: a public host could send us on to a private one.
 */

export { BLOCKED_ADDRESS_CODE, OutboundRefused, type Resolve } from "./outbound-refused.js";

export interface OutboundGuardOptions {
  /**
   * PROVIDER_ALLOW_PRIVATE_URLS / WEBHOOK_ALLOW_PRIVATE_TARGETS: the operator's own networks may be
   * reached (loopback, RFC 1918, link-local …); reserved addresses stay refused, redirects unfollowed.
   */
  readonly allowPrivate: boolean;
  readonly resolve?: Resolve;
  /** How long `urlProblem` waits for DNS (default 5 s). */
  readonly resolveTimeoutMs?: number;
}

export interface GuardedRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  /** Absent for a GET (client ID metadata documents). */
  readonly body?: string;
  readonly signal: AbortSignal;
}

export interface GuardedResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The body as a stream, for readers that stop at a size limit instead of buffering it all. */
  readonly body?: ReadableStream<Uint8Array> | null;
}

export interface OutboundGuard {
  readonly allowPrivate: boolean;
  /** Why this IP address may not be contacted ("127.0.0.1 is loopback"), or undefined. */
  addressProblem(address: string): string | undefined;
  /** Why this host may not be contacted now: a refused literal, a name resolving to one, or no answer. */
  hostProblem(hostname: string): Promise<string | undefined>;
  /** Why `url` may not be used: not a URL, another scheme than `protocols`, credentials, or its host. */
  urlProblem(url: string, rules: { readonly protocols: readonly string[] }): Promise<string | undefined>;
  /** dns.lookup for sockets (net, tls, node:https, undici): refuses a name with any refused address. */
  readonly lookup: LookupFunction;
  /** A node:https Agent whose every connection passes the guard. */
  httpsAgent(options: HttpsAgentOptions): HttpsAgent;
  /** fetch through the guard; redirects are answered, never followed. */
  fetch(url: string, init: GuardedRequest): Promise<GuardedResponse>;
}

const systemResolve: Resolve = (hostname) => lookupAll(hostname, { all: true });

export function createOutboundGuard(options: OutboundGuardOptions): OutboundGuard {
  const { allowPrivate } = options;
  const resolve = options.resolve ?? systemResolve;
  const policy = createAddressPolicy(allowPrivate, resolve, options.resolveTimeoutMs ?? 5000);
  const lookup = guardedLookup(policy, resolve);
  // One keep-alive pool per guard, created on first use — and undici (95 modules, ≈ 3.5 MB of heap)
  // loaded only then: an instance that never calls out never holds it.
  let pool: ReturnType<typeof createUndiciPool> | undefined;

  return {
    allowPrivate,
    addressProblem: policy.addressProblem,
    hostProblem: policy.hostProblem,
    async urlProblem(url, rules) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return "is not a valid absolute URL";
      }
      if (!rules.protocols.includes(parsed.protocol)) {
        return `must use ${rules.protocols.map((p) => p.replace(/:$/, "")).join(" or ")}`;
      }
      if (parsed.username !== "" || parsed.password !== "") return "must not contain credentials";
      return policy.hostProblem(parsed.hostname);
    },
    lookup,
    httpsAgent: (agentOptions) => new GuardedHttpsAgent(policy, { ...agentOptions, lookup }),
    async fetch(url, init) {
      pool ??= createUndiciPool(policy, lookup);
      const { agent, fetch } = await pool;
      return fetch(url, { ...init, redirect: "manual", dispatcher: agent });
    },
  };
}

const shared = new Map<boolean, OutboundGuard>();

/** The process's guard for one setting of allowPrivate, with the system resolver (one pool each). */
export function sharedOutboundGuard(allowPrivate: boolean): OutboundGuard {
  let guard = shared.get(allowPrivate);
  if (guard === undefined) {
    guard = createOutboundGuard({ allowPrivate });
    shared.set(allowPrivate, guard);
  }
  return guard;
}
