import type { TenantCaller } from "../auth/caller.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { type SubscriptionRow, selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

export async function getSubscription(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { id: string },
): Promise<SubscriptionRow> {
  requireWebhooksPlan(caller, deps.publicUrl);
  return deps.db.withTenant(caller.tenantId, (tx) => selectSubscription(tx, caller.tenantId, input.id));
}
