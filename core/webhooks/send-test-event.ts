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
  // A target stored before the guard refused it (or a name that now resolves to a private address)
  // would fail on every attempt: say so now, outside the transaction (DNS can take seconds).
  const stored = await deps.db.withTenant(caller.tenantId, (tx) =>
    selectSubscription(tx, caller.tenantId, input.subscriptionId),
  );
  const problem = await deps.guard.hostProblem(new URL(stored.url).hostname);
  if (problem !== undefined) {
    throw coreError(
      Code.FailedPrecondition,
      ErrorReason.CONFLICT,
      `the subscription's url cannot be delivered to: ${problem} (webhooks are only sent to public addresses); change its url`,
    );
  }
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
