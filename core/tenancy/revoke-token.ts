import type { Authenticator } from "../auth/authenticate.js";
import type { TenantCaller } from "../auth/caller.js";
import { notFound } from "../errors.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { revokeApiToken } from "./api-tokens.js";

/**
 * DELETE /api/tokens/{id}: revoked tokens get 401 from the next request on (spec "States and
 * transitions"). This process forgets its cached lookup after the commit; other processes serve
 * their cached lookup for at most the authenticator's 1 s cache lifetime.
 */
export async function revokeToken(
  deps: { db: Database; authenticator: Authenticator },
  caller: TenantCaller,
  input: { tokenId: string; ip: string | undefined },
): Promise<void> {
  const outcome = await deps.db.withTenant(caller.tenantId, async (tx) => {
    const result = await revokeApiToken(tx, caller.tenantId, input.tokenId);
    if (result === "revoked") {
      await recordAudit(tx, {
        tenantId: caller.tenantId,
        actorUserId: caller.userId,
        actorTokenId: caller.tokenId,
        action: "token.revoked",
        target: input.tokenId,
        ip: input.ip,
      });
    }
    return result;
  });
  if (outcome === "unknown") throw notFound("token");
  deps.authenticator.forgetToken(input.tokenId);
}
