import { randomUUID } from "node:crypto";
import { type CallOptions, Code, ConnectError } from "@connectrpc/connect";
import { z } from "zod";
import { WRITE_KEY_HEADER } from "../../lib/gateway-metadata.js";

/**
 * The optional idempotency_key argument of the write tools (issue 15): core keeps the answer of the
 * first call with a key for 24 hours and replays it, so a retry after a timeout never writes twice.
 * Forwarded as the metadata core reads (core/idempotency/idempotent-writes.ts).
 */
export const idempotencyKeyArgument = z.string().min(1).max(255).optional().meta({
  description:
    "Optional. A unique string per intended write (e.g. a UUID). Retrying with the same key within 24 hours returns the first call's result instead of writing again.",
});

/**
 * Runs one keyed write: with the caller's idempotency_key, or without one with a key of the
 * gateway's that core claims only if the write runs long (lib/gateway-metadata.ts WRITE_KEY_HEADER).
 * A write that timed out or was cut off by a stalled database (-32006) may still complete, so its
 * error names the key a retry passes as idempotency_key to get the write's result (issue 46).
 */
export async function keyedWrite<T>(
  callOptions: CallOptions,
  key: string | undefined,
  call: (options: CallOptions) => Promise<T>,
): Promise<T> {
  const headers = new Headers(callOptions.headers);
  const retryKey = key ?? `retry-${randomUUID()}`;
  headers.set(key === undefined ? WRITE_KEY_HEADER : "idempotency-key", retryKey);
  try {
    return await call({ ...callOptions, headers });
  } catch (error) {
    if (
      error instanceof ConnectError &&
      (error.code === Code.DeadlineExceeded || error.code === Code.Unavailable)
    ) {
      const named = new ConnectError(
        `${error.rawMessage}; the write may still complete: retry the same call with idempotency_key "${retryKey}" to get its result (it is never written twice)`,
        error.code,
        error.metadata,
        undefined,
        error.cause,
      );
      // The reason and retry details core attached stay readable for the error mapping.
      named.details = error.details;
      throw named;
    }
    throw error;
  }
}
