import type { TenantCaller } from "../auth/caller.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

export interface DeliveryRow {
  readonly id: string;
  readonly subscription_id: string;
  readonly event: string;
  readonly state: "pending" | "delivered" | "dead";
  readonly attempts: number;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: Date | null;
  readonly last_attempt_at: Date | null;
  readonly occurred_at: Date;
  readonly created_at: Date;
}

/** A subscription's most recent deliveries, newest first (default 20, at most 100). */
export async function listDeliveries(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { subscriptionId: string; limit: number | undefined },
): Promise<DeliveryRow[]> {
  requireWebhooksPlan(caller, deps.publicUrl);
  const limit = Math.min(Math.max(input.limit ?? 20, 1), 100);
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    await selectSubscription(tx, caller.tenantId, input.subscriptionId);
    return tx<DeliveryRow[]>`
      select id, subscription_id, event, state, attempts, last_status, last_error,
             case when state = 'pending' then next_attempt_at end as next_attempt_at,
             last_attempt_at, occurred_at, created_at
        from webhook_deliveries
       where tenant_id = ${caller.tenantId} and subscription_id = ${input.subscriptionId}
       order by created_at desc, occurred_at desc, id
       limit ${limit}`;
  });
}
