import type { TenantCaller } from "../auth/caller.js";
import { recordAudit } from "../store/record-audit.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

/** Deletes a subscription with its deliveries; nothing more is sent to it. */
export async function deleteSubscription(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: { id: string; ip: string | undefined },
): Promise<void> {
  requireWebhooksPlan(caller, deps.publicUrl);
  await deps.db.withTenant(caller.tenantId, async (tx) => {
    const row = await selectSubscription(tx, caller.tenantId, input.id, { forUpdate: true });
    await tx`delete from webhook_subscriptions where tenant_id = ${caller.tenantId} and id = ${input.id}`;
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "webhook.deleted",
      target: input.id,
      ip: input.ip,
      details: { url: row.url },
    });
  });
}
