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

/**
 * Storage faults that clear up by themselves once an operator acts (a directory made read-only or
 * given to another user, a full disk or quota): errno names from Node, the OS's own words and Rust's
 * "(os error N)" as LanceDB reports them (13 EACCES, 28 ENOSPC, 30 EROFS, 122 EDQUOT).
 */
const STORAGE_FAULT =
  /\b(EACCES|EPERM|ENOSPC|EROFS|EDQUOT)\b|permission denied|no space left|read-only file system|disk quota exceeded|os error (13|28|30|122)\b/i;

/** Whether `cause` (or one of its causes) is a storage fault that a retry may get past. */
export function isStorageFault(cause: unknown): boolean {
  for (let c: unknown = cause, depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const code = (c as NodeJS.ErrnoException).code;
    const message = c instanceof Error ? c.message : String(c);
    if (STORAGE_FAULT.test(`${code ?? ""} ${message}`)) return true;
    c = c instanceof Error ? c.cause : undefined;
  }
  return false;
}

/**
 * The vector store could not be written (issue 45, item 5): a retryable 503 (MCP -32006) rather than
 * ingest_failed, because nothing is wrong with the memory — the same write succeeds once the
 * directory is writable again, without a restart. The memory is still kept with status failed.
 */
export function storageUnavailable(memoryId: string, cause: unknown): ConnectError {
  return coreError(
    Code.Unavailable,
    ErrorReason.UNAVAILABLE,
    `the vector store cannot be written right now (${storageFaultKind(cause)}); the memory is kept with status failed (id ${memoryId}); retry shortly`,
    { metadata: { memory_id: memoryId }, cause },
  );
}

function storageFaultKind(cause: unknown): string {
  const text =
    cause instanceof Error
      ? `${(cause as NodeJS.ErrnoException).code ?? ""} ${cause.message}`
      : String(cause);
  if (/ENOSPC|no space left|os error 28|EDQUOT|quota|os error 122/i.test(text)) return "storage full";
  if (/EROFS|read-only|os error 30/i.test(text)) return "storage read-only";
  return "storage not writable";
}

/** The core error for a failure while indexing one memory. */
export function indexingError(memoryId: string, cause: unknown): ConnectError {
  if (cause instanceof ProviderError) return providerFailure(cause, memoryId);
  return isStorageFault(cause) ? storageUnavailable(memoryId, cause) : ingestFailed(memoryId, cause);
}

/** A short, log-safe description of why indexing failed (stored in memories.status_detail). */
export function failureDetail(cause: unknown): string {
  if (cause instanceof ProviderError) return `provider_error: ${cause.provider}: ${cause.reason}`;
  const message = cause instanceof Error ? cause.message : String(cause);
  return `ingest_failed: ${message.slice(0, 500)}`;
}
