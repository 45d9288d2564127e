import type { TenantCaller } from "../auth/caller.js";
import { recordAudit } from "../store/record-audit.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { checkEventKinds, checkTargetAddress, checkTargetUrl } from "./subscription-input.js";
import { type SubscriptionRow, selectSubscription } from "./subscription-row.js";
import type { WebhookDeps } from "./webhook-deps.js";

export interface UpdateSubscriptionInput {
  readonly id: string;
  readonly url?: string | undefined;
  /** Empty: unchanged. */
  readonly eventKinds: readonly string[];
  readonly description?: string | undefined;
  readonly ip: string | undefined;
}

/**
 * Changes url, event kinds or description. Pending deliveries keep their body and go to the new
 * URL; events already fanned out are not re-filtered by the new kinds.
 */
export async function updateSubscription(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionRow> {
  requireWebhooksPlan(caller, deps.publicUrl);
  const url = input.url === undefined ? null : checkTargetUrl(input.url);
  const kinds = input.eventKinds.length === 0 ? null : checkEventKinds(input.eventKinds);
  const description = input.description ?? null;
  if (url !== null) await checkTargetAddress(deps.guard, url);
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    await selectSubscription(tx, caller.tenantId, input.id, { forUpdate: true });
    await tx`
      update webhook_subscriptions
         set url = coalesce(${url}::text, url),
             event_kinds = coalesce(${kinds}::text[], event_kinds),
             description = coalesce(${description}::text, description),
             updated_at = now()
       where tenant_id = ${caller.tenantId} and id = ${input.id}`;
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "webhook.updated",
      target: input.id,
      ip: input.ip,
      details: { url, events: kinds },
    });
    return selectSubscription(tx, caller.tenantId, input.id);
  });
}
