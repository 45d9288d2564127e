import { Code, type ConnectError } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { coreError } from "../errors.js";
import { ProviderError } from "../models/provider-error.js";

/**
 * Spec "States and transitions": a memory service error leaves the entry marked failed and returns
 * ingest_failed (MCP -32603); nothing reports success that did not happen.
 */
export function ingestFailed(memoryId: string, cause: unknown): ConnectError {
  return coreError(
    Code.Internal,
    ErrorReason.INGEST_FAILED,
    `the memory could not be indexed; it is kept with status failed (id ${memoryId}); try again later`,
    { metadata: { memory_id: memoryId }, cause },
  );
}

/**
 * An embedding provider failed (spec JSON-RPC -32000 "provider error"; REST 502). The provider's own
 * words (status and answer, redacted, no URL) are shown: a tenant with its own key (BYOK) needs them
 * to see a revoked key or an exhausted quota; ProviderError never carries keys or credentials.
 */
export function providerFailure(error: ProviderError, memoryId: string | undefined): ConnectError {
  const text = error.providerText === undefined ? "" : `: ${error.providerText}`;
  return coreError(
    Code.Unavailable,
    ErrorReason.PROVIDER_ERROR,
    `the embedding provider failed (${error.provider}: ${error.reason})${text}${memoryId ? `; the memory is kept with status failed (id ${memoryId})` : ""}`,
    { metadata: { provider: error.provider, ...(memoryId ? { memory_id: memoryId } : {}) }, cause: error },
  );
}

/** The core error for a failure while indexing one memory. */
export function indexingError(memoryId: string, cause: unknown): ConnectError {
  return cause instanceof ProviderError ? providerFailure(cause, memoryId) : ingestFailed(memoryId, cause);
}

/** A short, log-safe description of why indexing failed (stored in memories.status_detail). */
export function failureDetail(cause: unknown): string {
  if (cause instanceof ProviderError) return `provider_error: ${cause.provider}: ${cause.reason}`;
  const message = cause instanceof Error ? cause.message : String(cause);
  return `ingest_failed: ${message.slice(0, 500)}`;
}
