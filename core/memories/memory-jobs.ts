import { currentRequestId } from "../../config/request-context.js";
import type { Sql, TransactionSql } from "../store/database.js";
import { enqueueJob } from "../store/job-queue.js";

/**
 * Job kinds of the ingest worker (handlers in worker/tasks/). Core enqueues them, so their names and
 * payloads live here, beside the code that writes the rows they concern.
 */
export const INDEX_MEMORY_TASK = "index-memory";
export const RECONCILE_ALL_TASK = "reconcile-all";
export const RECONCILE_TENANT_TASK = "reconcile-tenant";
export const MAINTAIN_VECTORS_TASK = "maintain-vectors";
export const REEMBED_TENANT_TASK = "reembed-tenant";
export const PURGE_ERASED_TASK = "purge-erased";

export interface IndexMemoryPayload {
  readonly tenantId: string;
  readonly memoryId: string;
}

/**
 * Attempts before a queued memory is marked failed. graphile-worker backs off exponentially
 * (e^attempt seconds: 3 s, 7 s, 20 s, 1 min, 2.5 min, 7 min, 18 min, 50 min, 2.3 h), so a provider
 * outage of a few hours is ridden out.
 */
export const INDEX_MEMORY_MAX_ATTEMPTS = 10;

/** Enqueues indexing of a queued memory in the caller's transaction (DESIGN "Jobs and outbox"). */
export function enqueueIndexMemory(tx: Sql | TransactionSql, payload: IndexMemoryPayload): Promise<string> {
  return enqueueJob(
    tx,
    INDEX_MEMORY_TASK,
    // The request that queued the memory, so the worker's log lines for it carry the same id.
    { ...payload, ...withRequestId() },
    {
      jobKey: `${INDEX_MEMORY_TASK}:${payload.memoryId}`,
      maxAttempts: INDEX_MEMORY_MAX_ATTEMPTS,
    },
  );
}

function withRequestId(): { requestId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? {} : { requestId };
}

/**
 * Asks the worker to make erased data of a tenant physically gone after `delayMs` (docs/erasure.md
 * "Vacuum"): old LanceDB versions and unmaterialised deletions, orphan jobs, dead PostgreSQL tuples;
 * for an erased workspace, its vector tables. One pending job per tenant; the payload names no memory.
 */
export function enqueuePurgeErased(
  tx: Sql | TransactionSql,
  tenantId: string,
  delayMs: number,
): Promise<string> {
  return enqueueJob(
    tx,
    PURGE_ERASED_TASK,
    { tenantId },
    { jobKey: `${PURGE_ERASED_TASK}:${tenantId}`, runAt: new Date(Date.now() + delayMs), maxAttempts: 10 },
  );
}
