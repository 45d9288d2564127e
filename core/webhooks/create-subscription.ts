import type { TenantCaller } from "../auth/caller.js";
import { recordAudit } from "../store/record-audit.js";
import { requireWebhooksPlan } from "./require-webhooks-plan.js";
import { generateWebhookSecret } from "./sign-body.js";
import { checkEventKinds, checkTargetAddress, checkTargetUrl } from "./subscription-input.js";
import { type SubscriptionRow, selectSubscription } from "./subscription-row.js";
import { requireSecretBox, type WebhookDeps } from "./webhook-deps.js";

export interface CreateSubscriptionInput {
  readonly url: string;
  readonly eventKinds: readonly string[];
  readonly description: string;
  readonly ip: string | undefined;
}

/** Creates an active subscription; the clear secret is returned here only and stored sealed. */
export async function createSubscription(
  deps: WebhookDeps,
  caller: TenantCaller,
  input: CreateSubscriptionInput,
): Promise<{ subscription: SubscriptionRow; secret: string }> {
  requireWebhooksPlan(caller, deps.publicUrl);
  const url = checkTargetUrl(input.url);
  const kinds = checkEventKinds(input.eventKinds);
  const box = requireSecretBox(deps);
  await checkTargetAddress(deps.guard, url);
  const secret = generateWebhookSecret();
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const [row] = await tx<{ id: string }[]>`
      insert into webhook_subscriptions (tenant_id, url, event_kinds, description, secret_sealed)
      values (${caller.tenantId}, ${url}, ${kinds}, ${input.description}, ${box.seal(secret)})
      returning id`;
    if (!row) throw new Error("subscription insert returned no row");
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "webhook.created",
      target: row.id,
      ip: input.ip,
      details: { url, events: kinds },
    });
    return { subscription: await selectSubscription(tx, caller.tenantId, row.id), secret };
  });
}
