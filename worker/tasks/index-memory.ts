import type { Task } from "graphile-worker";
import { indexQueuedMemory, type MemoryDeps } from "../../core/memories/index.js";
import { memoryPayload } from "./tenant-payload.js";

/**
 * Indexes a memory stored as queued (content above 10,000 characters, POST /api/documents, or a write
 * reconcile found interrupted). Throwing hands the job back to graphile-worker, which retries with
 * exponential backoff; the last attempt marks the memory failed instead.
 */
export function indexMemoryTask(deps: MemoryDeps): Task {
  return async (payload, helpers) => {
    const { tenantId, memoryId } = memoryPayload.parse(payload);
    const final = helpers.job.attempts >= helpers.job.max_attempts;
    const outcome = await indexQueuedMemory(deps, { tenantId, memoryId }, { final });
    deps.logger.info({ tenantId, memoryId, outcome, attempt: helpers.job.attempts }, "index-memory done");
  };
}
