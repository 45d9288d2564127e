import type { ConnectError, Transport } from "@connectrpc/connect";
import { ROUTE_HEADER } from "../lib/gateway-metadata.js";
import { rendezvousOrder } from "./rendezvous.js";
import { createRouteCache, credentialKeyOf } from "./route-cache.js";

/** One core process a gateway can reach, with its own gRPC transport (HTTP/2 connection). */
export interface CoreEndpoint {
  readonly url: string;
  readonly transport: Transport;
}

export interface RoutingTransportOptions {
  readonly endpoints: readonly CoreEndpoint[];
  /** How long an endpoint that refused a call is tried last (default 3 s). */
  readonly downForMs?: number;
  /** How many credentials' workspace routes are remembered (default 10,000; ≈ 100 bytes each). */
  readonly routeCacheSize?: number;
  /** Told when a call leaves an endpoint for the next one in its order. */
  readonly onFailover?: (event: { readonly from: string; readonly error: ConnectError }) => void;
  readonly now?: () => number;
}

/**
 * Which core a call goes to (ADR 0380): the rendezvous order of its route key, with the cores that
 * recently refused a call moved last; the workspace routes core named are remembered per credential.
 */
export class CoreRouter {
  readonly #endpoints: Map<string, CoreEndpoint>;
  readonly #urls: string[];
  readonly #downUntil = new Map<string, number>();
  readonly #downForMs: number;
  readonly #routes: ReturnType<typeof createRouteCache>;
  #anonymousCalls = 0;
  readonly now: () => number;

  constructor(options: RoutingTransportOptions) {
    this.#endpoints = new Map(options.endpoints.map((e) => [e.url, e]));
    if (this.#endpoints.size === 0) throw new Error("a routing transport needs at least one core endpoint");
    this.#urls = [...this.#endpoints.keys()];
    this.#downForMs = options.downForMs ?? 3000;
    this.now = options.now ?? Date.now;
    this.#routes = createRouteCache(options.routeCacheSize ?? 10_000);
  }

  endpoint(url: string): CoreEndpoint | undefined {
    return this.#endpoints.get(url);
  }

  /** The call's credential key and the order of cores to try. */
  route(header: Headers): { credential: string | undefined; order: string[] } {
    const credential = credentialKeyOf(header);
    const key = this.#keyOf(credential);
    // The key's rendezvous order, with endpoints marked down moved to the end (still tried: a fleet
    // whose every core just failed is tried again rather than refused outright).
    const order = rendezvousOrder(key, this.#urls);
    const at = this.now();
    const up = order.filter((u) => (this.#downUntil.get(u) ?? 0) <= at);
    const down = order.filter((u) => (this.#downUntil.get(u) ?? 0) > at);
    return { credential, order: [...up, ...down] };
  }

  /** Remembers the workspace route core named in an answer (or error) for the credential. */
  learn(credential: string | undefined, header: Headers): void {
    const named = header.get(ROUTE_HEADER);
    if (credential !== undefined && named !== null) this.#routes.set(credential, `route\0${named}`);
  }

  answered(url: string): void {
    this.#downUntil.delete(url);
  }

  /** The core refused a call: tried last for a while. */
  refused(url: string): void {
    this.#downUntil.set(url, this.now() + this.#downForMs);
  }

  #keyOf(credential: string | undefined): string {
    if (credential !== undefined) return this.#routes.get(credential) ?? `credential\0${credential}`;
    this.#anonymousCalls = (this.#anonymousCalls + 1) % 1_000_000;
    return `anonymous\0${this.#anonymousCalls}`;
  }
}
