import type { Authenticator } from "../auth/authenticate.js";
import { cancelSubscriptionNow } from "../billing/cancel-subscription-now.js";
import type { BillingDeps } from "../billing/payments.js";
import { createLifecycleService } from "../lifecycle/lifecycle-service.js";
import type { Bm25IndexCache } from "../recall/bm25/bm25-index-cache.js";
import type { CoreOptions } from "./core-options.js";

/**
 * LifecycleService (erasure, export, import) with what an erasure must reach outside it: the cached
 * credentials, the BM25 indexes and the subscription.
 */
export function createLifecycleParts(
  options: CoreOptions,
  authenticator: Authenticator,
  bm25Index: Bm25IndexCache | undefined,
  billingDeps: BillingDeps,
): ReturnType<typeof createLifecycleService> {
  return createLifecycleService({
    db: options.db,
    vectors: options.vectors,
    embedder: options.embedder,
    logger: options.logger,
    purgeDelayMs: options.vectorPurgeDelayMs ?? 120_000,
    upgradeUrl: `${options.publicUrl}/dashboard/billing`,
    forgetTenant: (tenantId) => {
      authenticator.forgetTenant(tenantId);
      bm25Index?.forget(tenantId);
    },
    // Erased chunks leave this process's BM25 index at once (other processes: next recall or sweep).
    onChunksErased: (tenantId) =>
      bm25Index
        ?.refresh(tenantId)
        .catch((error: unknown) =>
          options.logger.warn({ err: error, tenantId }, "BM25 index not caught up after an erasure"),
        ),
    cancelSubscription: (tenantId) => cancelSubscriptionNow(billingDeps, tenantId),
  });
}
