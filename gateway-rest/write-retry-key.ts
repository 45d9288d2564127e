import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { KEYED_WRITE_METHODS, WRITE_KEY_HEADER } from "../lib/gateway-metadata.js";
import type { HttpError } from "./http-errors.js";

/** The caller's own key: the metadata key core reads is the HTTP header's name. */
export const IDEMPOTENCY_KEY = "idempotency-key";

const generated = new WeakMap<FastifyRequest, string>();

/**
 * Headers that let core keep a write's answer under a key: the caller's Idempotency-Key, or for a
 * write sent without one a key of the gateway's (WRITE_KEY_HEADER), which core claims only if the
 * write runs long. Only the keyed writes (KEYED_WRITE_METHODS, by the route's core RPC) get one.
 */
export function writeKeyHeaders(request: FastifyRequest): Record<string, string> {
  const own = request.headers[IDEMPOTENCY_KEY];
  if (typeof own === "string") return { [IDEMPOTENCY_KEY]: own };
  if (!isKeyedWrite(request)) return {};
  let key = generated.get(request);
  if (key === undefined) {
    key = `retry-${randomUUID()}`;
    generated.set(request, key);
  }
  return { [WRITE_KEY_HEADER]: key };
}

/**
 * A write that timed out (504) or was cut off by a stalled database (503) may still complete, so
 * its answer names the key that resolves it: retried with that Idempotency-Key, the same request
 * returns the write's own result (or 409 while it still runs) and is never written twice.
 */
export function withRetryKey(mapped: HttpError, request: FastifyRequest): HttpError {
  if (mapped.status !== 504 && mapped.status !== 503) return mapped;
  if (!isKeyedWrite(request)) return mapped;
  const own = request.headers[IDEMPOTENCY_KEY];
  const key = typeof own === "string" ? own : generated.get(request);
  if (key === undefined) return mapped;
  const error =
    mapped.status === 504
      ? "the write did not answer in time and may still complete; retry the same request with the header " +
        `Idempotency-Key: ${key} to get its result — it is never written twice`
      : `${String(mapped.body.error)} (this request's key: Idempotency-Key: ${key})`;
  return {
    ...mapped,
    body: { ...mapped.body, error },
    headers: { ...mapped.headers, [IDEMPOTENCY_KEY]: key },
  };
}

function isKeyedWrite(request: FastifyRequest): boolean {
  const rpc = request.routeOptions.schema?.["x-core-rpc"];
  return typeof rpc === "string" && KEYED_WRITE_METHODS.has(rpc);
}
