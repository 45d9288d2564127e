import type { TenantCaller } from "../auth/caller.js";
import { planGateError } from "../errors.js";
import { plansWith } from "../plans/plans.js";
import { upgradeUrl } from "../plans/upgrade-url.js";

/** Webhooks are a Team-plan feature (spec "Events"): every method answers 402 below it. */
export function requireWebhooksPlan(caller: TenantCaller, publicUrl: string): void {
  if (caller.limits.features.has("webhooks")) return;
  throw planGateError({
    feature: "webhooks",
    currentPlan: caller.plan,
    requiredPlans: plansWith("webhooks"),
    message: "outgoing webhooks need the team plan or higher",
    upgradeUrl: upgradeUrl(publicUrl),
  });
}
