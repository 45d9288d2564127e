import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/**
 * The request a piece of work belongs to, carried through async calls so every log line written
 * on its behalf names it (config/logger.ts adds `reqId` from here), across the edge, the gateways,
 * core's services and the jobs a request enqueues. A leaf module: anyone may import it.
 */
export interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The header a request id travels in: HTTP requests and responses, and core calls. */
export const REQUEST_ID_HEADER = "x-request-id";

/** What we accept from a client as its request id; anything else is replaced by a fresh one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The given id when it is sane (plain characters, at most 128), else a new UUID. */
export function acceptRequestId(given: unknown): string {
  return typeof given === "string" && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

export function isSaneRequestId(given: unknown): given is string {
  return typeof given === "string" && SANE_REQUEST_ID.test(given);
}

export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
