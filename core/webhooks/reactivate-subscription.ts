import type { TenantCaller } from "../auth/caller.js";
import { recordAudit } from "../store/record-audit.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { type SubscriptionRow, selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

/**
 * Reactivates a subscription (spec "States and transitions": deactivated → reactivated manually):
 * the failure count starts again at zero and its pending deliveries are due at once.
 */
export async function reactivateSubscription(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { id: string; ip: string | undefined },
): Promise<SubscriptionRow> {
  requireWebhooksPlan(caller, deps.publicUrl);
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const before = await selectSubscription(tx, caller.tenantId, input.id, { forUpdate: true });
    await tx`
      update webhook_subscriptions
         set active = true, consecutive_failures = 0, deactivated_at = null, updated_at = now()
       where tenant_id = ${caller.tenantId} and id = ${input.id}`;
    const resumed = await tx`
      update webhook_deliveries set next_attempt_at = least(next_attempt_at, now())
       where tenant_id = ${caller.tenantId} and subscription_id = ${input.id} and state = 'pending'`;
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "webhook.reactivated",
      target: input.id,
      ip: input.ip,
      details: { wasActive: before.active, resumedDeliveries: resumed.count },
    });
    await tx`select pg_notify('webhook_events', '')`;
    return selectSubscription(tx, caller.tenantId, input.id);
  });
}
