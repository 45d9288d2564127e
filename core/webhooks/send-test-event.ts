import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { coreError } from "../errors.js";
import { eventBody } from "./event-body.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

/**
 * The dashboard's Test button (spec "Events": webhook.test): a delivery to this one subscription,
 * whatever kinds it selected, with the usual signature and retries. Returns its delivery id.
 */
export async function sendTestEvent(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { subscriptionId: string },
): Promise<string> {
  requireWebhooksPlan(caller, deps.publicUrl);
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const subscription = await selectSubscription(tx, caller.tenantId, input.subscriptionId);
    if (!subscription.active) {
      throw coreError(
        Code.FailedPrecondition,
        ErrorReason.CONFLICT,
        "the subscription is deactivated after repeated failures; reactivate it first",
      );
    }
    const [now] = await tx<{ at: Date }[]>`select now() as at`;
    const occurredAt = now?.at ?? new Date();
    const body = eventBody("webhook.test", caller.tenantId, occurredAt, {
      subscriptionId: subscription.id,
      message: "Test event from the memory service; verify its signature with your secret.",
    });
    const [row] = await tx<{ id: string }[]>`
      insert into webhook_deliveries (tenant_id, subscription_id, event, body, occurred_at, next_attempt_at)
      values (${caller.tenantId}, ${subscription.id}, 'webhook.test', ${body}, ${occurredAt}, ${occurredAt})
      returning id`;
    if (!row) throw new Error("delivery insert returned no row");
    return row.id;
  });
}
