import type { LookupAddress } from "node:dns";

/** The `code` of a connection the guard refused (on `cause` of a fetch error). */
export const BLOCKED_ADDRESS_CODE = "ERR_OUTBOUND_ADDRESS_BLOCKED";

export class OutboundRefused extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
}

/** Every address of a name, as dns.lookup({ all: true }) answers (tests inject their own). */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;
