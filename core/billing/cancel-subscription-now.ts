import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { coreError } from "../errors.js";
import type { BillingDeps } from "./payments.js";

/**
 * Ends a workspace's subscription at once (Stripe `DELETE /v1/subscriptions/{id}`), for erasure: a
 * workspace that no longer exists must not be charged again (issue 20). Called before its rows go,
 * so a failure leaves the workspace and its subscription id in place for a retry. Returns whether a
 * subscription was cancelled; without payments configured or without a subscription there is none.
 * Used by the owner's erasure (create-core) and the operator's `tenant erase` (cli/commands).
 */
export async function cancelSubscriptionNow(
  deps: Pick<BillingDeps, "db" | "logger" | "payments">,
  tenantId: string,
): Promise<boolean> {
  if (!deps.payments) return false;
  const [row] = await deps.db.sql<{ payment_subscription_id: string | null }[]>`
    select payment_subscription_id from tenants where id = ${tenantId}`;
  const subscriptionId = row?.payment_subscription_id;
  if (!subscriptionId) return false;
  try {
    await deps.payments.stripe.subscriptions.cancel(subscriptionId);
    return true;
  } catch (error) {
    // Already gone at Stripe (cancelled in the portal, deleted by an operator): nothing to end.
    if ((error as { code?: unknown }).code === "resource_missing") return false;
    deps.logger.warn({ err: error, tenantId }, "cancelling the subscription for an erasure failed");
    throw coreError(
      Code.Unavailable,
      ErrorReason.PROVIDER_ERROR,
      "the payment provider could not cancel the subscription; nothing was erased, retry shortly",
      { cause: error },
    );
  }
}
