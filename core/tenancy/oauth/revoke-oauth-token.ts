import type { Authenticator } from "../../auth/authenticate.js";
import { hashSecret } from "../../auth/token-format.js";
import type { Database } from "../../store/database.js";
import { recordAudit } from "../../store/record-audit.js";
import { revokeGrants } from "./oauth-grants.js";
import { authenticateClient } from "./oauth-rules.js";

/**
 * RFC 7009: the client revokes an access or refresh token it holds; either ends the whole connection
 * (the grant with all its tokens, 2.1: "MAY revoke the respective refresh token as well"), exactly as
 * revoking it in the dashboard does. An unknown token, or one of another client, is answered like a
 * success and changes nothing (2.2), so the endpoint reveals nothing about tokens.
 */
export async function revokeOAuthToken(
  deps: { db: Database; authenticator: Authenticator },
  input: { clientId: string; clientSecret: string | undefined; token: string; ip: string | undefined },
): Promise<void> {
  const client = await authenticateClient(deps.db.sql, input.clientId, input.clientSecret);
  const hash = hashSecret(input.token);
  const [row] = await deps.db.sql<{ grant_id: string; tenant_id: string }[]>`
    select a.grant_id, a.tenant_id from oauth_access_tokens a join api_tokens g on g.id = a.grant_id
    where a.token_hash = ${hash} and g.oauth_client_id = ${client.id}
    union all
    select r.grant_id, r.tenant_id from oauth_refresh_tokens r join api_tokens g on g.id = r.grant_id
    where r.token_hash = ${hash} and g.oauth_client_id = ${client.id}
    limit 1`;
  if (!row) return;
  const revoked = await deps.db.withTenant(row.tenant_id, async (tx) => {
    const ids = await revokeGrants(tx, { grantId: row.grant_id });
    if (ids.length > 0) {
      await recordAudit(tx, {
        tenantId: row.tenant_id,
        action: "token.revoked",
        target: row.grant_id,
        ip: input.ip,
        details: { kind: "oauth", via: "oauth_revocation", client: client.client_name },
      });
    }
    return ids;
  });
  for (const id of revoked) deps.authenticator.forgetToken(id);
}
