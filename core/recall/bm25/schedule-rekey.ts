import type { Logger } from "../../../config/logger.js";
import type { Database } from "../../store/database.js";
import type { CollectionStatistics } from "./read-collection-statistics.js";
import { averageLength } from "./read-collection-statistics.js";

/** Re-key when the average chunk length and the impact key differ by more than this factor. */
export const REKEY_DRIFT = 1.5;

export function keyDrift(collection: CollectionStatistics): number {
  if (collection.keyAvgdl <= 0 || collection.chunkCount === 0) return 1;
  const avgdl = averageLength(collection);
  return Math.max(avgdl / collection.keyAvgdl, collection.keyAvgdl / avgdl);
}

/**
 * Keeps impact keys near the current average length (migration 0030 bm25_rekey), in the background:
 * searches stay exact with any key, a far one only makes them read more. One re-key per tenant at a
 * time per process; it briefly holds the tenant's writers back, and a growing tenant's average moves
 * ever more slowly, so this runs mostly while a tenant is young and small.
 */
export function createRekeyScheduler(db: Database, logger: Logger) {
  const running = new Set<string>();
  return (tenantId: string, collection: CollectionStatistics): void => {
    if (keyDrift(collection) <= REKEY_DRIFT || running.has(tenantId)) return;
    running.add(tenantId);
    db.withTenant(tenantId, (tx) => tx`select bm25_rekey(${tenantId}, ${REKEY_DRIFT})`)
      .catch((error: unknown) =>
        logger.warn({ err: error, tenantId }, "BM25 re-key failed; searches stay exact"),
      )
      .finally(() => running.delete(tenantId));
  };
}

export type RekeyScheduler = ReturnType<typeof createRekeyScheduler>;
