import type { TenantCaller } from "../auth/caller.js";
import { recordAudit } from "../store/record-audit.js";
import { SECRET_OVERLAP_MS } from "./delivery-rules.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { generateWebhookSecret } from "./sign-body.js";
import { type SubscriptionRow, selectSubscription } from "./subscription-row.js";
import { requireSecretBox, type WebhookDeps } from "./webhook-deps.js";

/**
 * Issues a new signing secret (returned once). The current one becomes the previous secret and keeps
 * signing for 24 h, so deliveries carry both signatures while receivers switch over. A second
 * rotation within the overlap drops the oldest secret at once.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { id: string; ip: string | undefined },
): Promise<{ subscription: SubscriptionRow; secret: string }> {
  requireWebhooksPlan(caller, deps.publicUrl);
  const box = requireSecretBox(deps);
  const secret = generateWebhookSecret();
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    await selectSubscription(tx, caller.tenantId, input.id, { forUpdate: true });
    await tx`
      update webhook_subscriptions
         set previous_secret_sealed = secret_sealed,
             previous_secret_expires_at = now() + ${`${SECRET_OVERLAP_MS} milliseconds`}::interval,
             secret_sealed = ${box.seal(secret)},
             updated_at = now()
       where tenant_id = ${caller.tenantId} and id = ${input.id}`;
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "webhook.secret_rotated",
      target: input.id,
      ip: input.ip,
    });
    return { subscription: await selectSubscription(tx, caller.tenantId, input.id), secret };
  });
}
