import type { TenantCaller } from "../auth/caller.js";
import type { Scope } from "../auth/principal.js";
import { planGateError } from "../errors.js";
import { plansWith } from "../plans/plans.js";
import { upgradeUrl } from "../plans/upgrade-url.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { type IssuedToken, insertApiToken } from "./api-tokens.js";

/**
 * POST /api/tokens: the api plan only (spec "Authentication" 7, plan gate 402), at most 50 active
 * per workspace; the clear token is returned once and only its hash stored.
 */
export async function createToken(
  deps: { db: Database; publicUrl: string },
  caller: TenantCaller,
  input: { name: string; scopes: Scope[]; ip: string | undefined },
): Promise<IssuedToken> {
  if (!caller.limits.features.has("api_tokens")) {
    throw planGateError({
      feature: "api_tokens",
      currentPlan: caller.plan,
      requiredPlans: plansWith("api_tokens"),
      message: "API tokens need the api plan",
      upgradeUrl: upgradeUrl(deps.publicUrl),
    });
  }
  return deps.db.withTenant(caller.tenantId, async (tx) => {
    const issued = await insertApiToken(tx, {
      tenantId: caller.tenantId,
      name: input.name,
      scopes: input.scopes,
      createdBy: caller.userId,
    });
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "token.created",
      target: issued.id,
      ip: input.ip,
      details: { name: issued.name, scopes: issued.scopes },
    });
    return issued;
  });
}
