import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from "node:https";
import type { LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import type { buildConnector, Agent as UndiciAgent, fetch as UndiciFetch } from "undici";
import type { AddressPolicy } from "./address-policy.js";
import { OutboundRefused, type Resolve } from "./outbound-refused.js";

/** dns.lookup for sockets (net, tls, node:https, undici): refuses a name with any refused address. */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const family =
      lookupOptions.family === "IPv4" ? 4 : lookupOptions.family === "IPv6" ? 6 : lookupOptions.family;
    resolve(hostname).then(
      (addresses) => {
        const problem = policy.resolvedProblem(hostname, addresses);
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
}

/** A node:https Agent that checks an IP literal where the socket is made (names go through `lookup`). */
export class GuardedHttpsAgent extends HttpsAgent {
  constructor(
    private readonly policy: AddressPolicy,
    options: HttpsAgentOptions,
  ) {
    super(options);
  }

  override createConnection(
    connect: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const problem = this.policy.literalProblem(String(connect.host ?? connect.hostname ?? ""));
    if (problem === undefined) return super.createConnection(connect, callback);
    // The agent hands the error to the request, which fails with it; no socket is opened.
    callback?.(new OutboundRefused(problem), undefined as unknown as Duplex);
    return undefined;
  }
}

/** undici's fetch with an Agent whose connections pass the guard (loaded on first use: ≈ 3.5 MB of heap). */
export function createUndiciPool(
  policy: AddressPolicy,
  lookup: LookupFunction,
): Promise<{ agent: UndiciAgent; fetch: typeof UndiciFetch }> {
  return import("undici").then((undici) => {
    const connectByName = undici.buildConnector({ lookup });
    const connect: buildConnector.connector = (target, callback) => {
      const problem = policy.literalProblem(target.hostname);
      if (problem !== undefined) return callback(new OutboundRefused(problem), null);
      return connectByName(target, callback);
    };
    return { agent: new undici.Agent({ connect }), fetch: undici.fetch };
  });
}
