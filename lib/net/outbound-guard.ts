import type { LookupAddress } from "node:dns";
import { lookup as lookupAll } from "node:dns/promises";
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import type { buildConnector, Agent as UndiciAgent, fetch as UndiciFetch } from "undici";
import { classifyAddress } from "./classify-address.js";

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

/** The `code` of a connection the guard refused (on `cause` of a fetch error). */
export const BLOCKED_ADDRESS_CODE = "ERR_OUTBOUND_ADDRESS_BLOCKED";

export class OutboundRefused extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
}

/** Every address of a name, as dns.lookup({ all: true }) answers (tests inject their own). */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

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

const unbracket = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

const systemResolve: Resolve = (hostname) => lookupAll(hostname, { all: true });

export function createOutboundGuard(options: OutboundGuardOptions): OutboundGuard {
  const { allowPrivate } = options;
  const resolve = options.resolve ?? systemResolve;
  const resolveTimeoutMs = options.resolveTimeoutMs ?? 5000;

  /** What makes `address` refused here ("loopback" …), or undefined when it may be contacted. */
  const refused = (address: string): string | undefined => {
    const special = classifyAddress(address);
    return special === undefined || (allowPrivate && special.kind === "private") ? undefined : special.what;
  };

  const addressProblem = (address: string): string | undefined => {
    const what = refused(address);
    return what === undefined ? undefined : `${address} is ${what}`;
  };

  /** A name is refused when any of its addresses is: the connection may pick any of them. */
  const resolvedProblem = (hostname: string, addresses: readonly LookupAddress[]): string | undefined => {
    for (const { address } of addresses) {
      const what = refused(address);
      if (what !== undefined) return `${hostname} resolves to ${address}, which is ${what}`;
    }
    return addresses.length === 0 ? `host ${hostname} has no address` : undefined;
  };

  /** The check of a literal host, where sockets skip the lookup. */
  const literalProblem = (host: string): string | undefined => {
    const bare = unbracket(host);
    return isIP(bare) === 0 ? undefined : addressProblem(bare);
  };

  const hostProblem = async (hostname: string): Promise<string | undefined> => {
    const host = unbracket(hostname);
    if (isIP(host) !== 0) return addressProblem(host);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((done) => {
      timer = setTimeout(() => done("timeout"), resolveTimeoutMs);
    });
    try {
      const answer = await Promise.race([resolve(host), timeout]);
      if (answer === "timeout") return `host ${host} did not resolve within ${resolveTimeoutMs / 1000} s`;
      return resolvedProblem(host, answer);
    } catch {
      return `host ${host} does not resolve`;
    } finally {
      clearTimeout(timer);
    }
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const family =
      lookupOptions.family === "IPv4" ? 4 : lookupOptions.family === "IPv6" ? 6 : lookupOptions.family;
    resolve(hostname).then(
      (addresses) => {
        const problem = resolvedProblem(hostname, addresses);
        if (problem !== undefined) return callback(new OutboundRefused(problem), "", 4);
        const wanted =
          family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        const [first] = wanted;
        if (first === undefined)
          return callback(new OutboundRefused(`host ${hostname} has no address`), "", 4);
        // Node asks for every address (autoSelectFamily) or for one; answer in the form it asked.
        if (lookupOptions.all === true) return callback(null, [...wanted]);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };

  class GuardedHttpsAgent extends HttpsAgent {
    override createConnection(
      connect: RequestOptions,
      callback?: (err: Error | null, stream: Duplex) => void,
    ): Duplex | null | undefined {
      const problem = literalProblem(String(connect.host ?? connect.hostname ?? ""));
      if (problem === undefined) return super.createConnection(connect, callback);
      // The agent hands the error to the request, which fails with it; no socket is opened.
      callback?.(new OutboundRefused(problem), undefined as unknown as Duplex);
      return undefined;
    }
  }

  // One keep-alive pool per guard, created on first use — and undici (95 modules, ≈ 3.5 MB of heap)
  // loaded only then: an instance that never calls out never holds it.
  let pool: Promise<{ agent: UndiciAgent; fetch: typeof UndiciFetch }> | undefined;
  const undiciPool = () =>
    import("undici").then((undici) => {
      const connectByName = undici.buildConnector({ lookup });
      const connect: buildConnector.connector = (target, callback) => {
        const problem = literalProblem(target.hostname);
        if (problem !== undefined) return callback(new OutboundRefused(problem), null);
        return connectByName(target, callback);
      };
      return { agent: new undici.Agent({ connect }), fetch: undici.fetch };
    });

  return {
    allowPrivate,
    addressProblem,
    hostProblem,
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
      return hostProblem(parsed.hostname);
    },
    lookup,
    httpsAgent: (agentOptions) => new GuardedHttpsAgent({ ...agentOptions, lookup }),
    async fetch(url, init) {
      pool ??= undiciPool();
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
