import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import type { ClaimedDelivery } from "./claim-due-deliveries.js";
import { DEACTIVATE_AFTER_FAILURES, nextAttemptAt } from "./delivery-rules.js";
import type { AttemptResult } from "./record-successes.js";
import { recordSuccesses } from "./record-successes.js";
import type { AttemptOutcome } from "./send-webhook.js";

export type { AttemptResult };

/**
 * Records one attempt (spec "Delivery rules", "States and transitions"): delivered on a 2xx; else
 * the next attempt per the schedule, or dead after the sixth failure. The subscription's count of
 * consecutive failures is reset by a success and deactivates it at 20 (with an audit entry). Nothing
 * is written when this worker's lease was taken over meanwhile (the other worker's attempt counts).
 */
export async function recordAttempt(
  db: Database,
  claimed: ClaimedDelivery,
  outcome: AttemptOutcome,
  finishedAt: Date,
): Promise<AttemptResult> {
  if (outcome.ok) {
    const recorded = await recordSuccesses(db, [{ claimed, status: outcome.status, finishedAt }]);
    return recorded.has(claimed.id) ? "delivered" : "lease_lost";
  }
  return db.withTenant(claimed.tenant_id, async (tx) => {
    const attempts = claimed.attempts + 1;
    const next = nextAttemptAt(attempts, finishedAt);
    const updated = await tx`
      update webhook_deliveries
         set attempts = ${attempts}, last_attempt_at = ${finishedAt},
             last_status = ${outcome.status ?? null}, last_error = ${outcome.error},
             state = ${next ? "pending" : "dead"}, next_attempt_at = ${next ?? null},
             lease_token = null, lease_expires_at = null
       where id = ${claimed.id} and lease_token = ${claimed.lease_token} and state = 'pending'`;
    if (updated.count === 0) return "lease_lost";
    const [sub] = await tx<{ active: boolean; consecutive_failures: number }[]>`
      update webhook_subscriptions set consecutive_failures = consecutive_failures + 1
       where id = ${claimed.subscription_id}
      returning active, consecutive_failures`;
    if (sub?.active && sub.consecutive_failures >= DEACTIVATE_AFTER_FAILURES) {
      await tx`update webhook_subscriptions set active = false, deactivated_at = ${finishedAt}, updated_at = now()
                where id = ${claimed.subscription_id}`;
      await recordAudit(tx, {
        tenantId: claimed.tenant_id,
        action: "webhook.deactivated",
        target: claimed.subscription_id,
        details: { consecutiveFailures: sub.consecutive_failures, lastError: outcome.error },
      });
    }
    return next ? "retry" : "dead";
  });
}
