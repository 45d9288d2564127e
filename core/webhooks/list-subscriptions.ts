import type { TenantCaller } from "../auth/caller.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import type { SubscriptionRow } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

/** The workspace's subscriptions, oldest first; secrets are never shown again. */
export async function listSubscriptions(deps: WebhookDeps, caller: TenantCaller): Promise<SubscriptionRow[]> {
  requireWebhooksPlan(caller, deps.publicUrl);
  return deps.db.withTenant(
    caller.tenantId,
    (tx) => tx<SubscriptionRow[]>`
      select id, url, event_kinds, description, active, consecutive_failures, created_at, deactivated_at,
             previous_secret_expires_at
        from webhook_subscriptions where tenant_id = ${caller.tenantId}
       order by created_at, id`,
  );
}
