import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { classifyAddress } from "./classify-address.js";
import type { Resolve } from "./outbound-refused.js";

/** The guard's answers about addresses and hosts: each a reason for refusing, or undefined. */
export interface AddressPolicy {
  /** Why this IP address may not be contacted ("127.0.0.1 is loopback"), or undefined. */
  addressProblem(address: string): string | undefined;
  /** A name is refused when any of its addresses is: the connection may pick any of them. */
  resolvedProblem(hostname: string, addresses: readonly LookupAddress[]): string | undefined;
  /** The check of a literal host, where sockets skip the lookup; undefined for a name. */
  literalProblem(host: string): string | undefined;
  /** Why this host may not be contacted now: a refused literal, a name resolving to one, or no answer. */
  hostProblem(hostname: string): Promise<string | undefined>;
}

export const unbracket = (host: string) =>
  host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;

export function createAddressPolicy(
  allowPrivate: boolean,
  resolve: Resolve,
  resolveTimeoutMs: number,
): AddressPolicy {
  /** What makes `address` refused here ("loopback" …), or undefined when it may be contacted. */
  const refused = (address: string): string | undefined => {
    const special = classifyAddress(address);
    return special === undefined || (allowPrivate && special.kind === "private") ? undefined : special.what;
  };

  const addressProblem = (address: string): string | undefined => {
    const what = refused(address);
    return what === undefined ? undefined : `${address} is ${what}`;
  };

  const resolvedProblem = (hostname: string, addresses: readonly LookupAddress[]): string | undefined => {
    for (const { address } of addresses) {
      const what = refused(address);
      if (what !== undefined) return `${hostname} resolves to ${address}, which is ${what}`;
    }
    return addresses.length === 0 ? `host ${hostname} has no address` : undefined;
  };

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

  return { addressProblem, resolvedProblem, literalProblem, hostProblem };
}
