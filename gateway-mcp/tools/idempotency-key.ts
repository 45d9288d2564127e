import type { CallOptions } from "@connectrpc/connect";
import { z } from "zod";

/**
 * The optional idempotency_key argument of the write tools (issue 15): core keeps the answer of the
 * first call with a key for 24 hours and replays it, so a retry after a timeout never writes twice.
 * Forwarded as the metadata core reads (core/idempotency/idempotency-interceptor.ts).
 */
export const idempotencyKeyArgument = z.string().min(1).max(255).optional().meta({
  description:
    "Optional. A unique string per intended write (e.g. a UUID). Retrying with the same key within 24 hours returns the first call's result instead of writing again.",
});

export function withIdempotencyKey(callOptions: CallOptions, key: string | undefined): CallOptions {
  if (key === undefined) return callOptions;
  const headers = new Headers(callOptions.headers);
  headers.set("idempotency-key", key);
  return { ...callOptions, headers };
}
