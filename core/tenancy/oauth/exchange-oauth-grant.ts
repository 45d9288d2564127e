import type { Authenticator } from "../../auth/authenticate.js";
import type { Scope } from "../../auth/principal.js";
import { hashSecret } from "../../auth/token-format.js";
import type { Database } from "../../store/database.js";
import { recordAudit } from "../../store/record-audit.js";
import {
  type IssuedTokens,
  insertGrant,
  issueTokens,
  REFRESH_TOKEN_PATTERN,
  revokeGrants,
} from "./oauth-grants.js";
import {
  authenticateClient,
  type ClientRow,
  CODE_VERIFIER_PATTERN,
  oauthRejected,
  sameResource,
  verifierMatches,
} from "./oauth-rules.js";

export interface ExchangeInput {
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly grantType: string;
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri: string | undefined;
  readonly refreshToken: string;
  readonly scopes: readonly Scope[];
  readonly resource: string | undefined;
  readonly ip: string | undefined;
}

interface Deps {
  readonly db: Database;
  readonly authenticator: Authenticator;
}

/** The token endpoint's grants (RFC 6749 4.1.3 with PKCE, 6 with rotation). */
export async function exchangeOAuthGrant(deps: Deps, input: ExchangeInput): Promise<IssuedTokens> {
  const client = await authenticateClient(deps.db.sql, input.clientId, input.clientSecret);
  if (input.grantType === "authorization_code") return redeemCode(deps, client, input);
  if (input.grantType === "refresh_token") return refresh(deps, client, input);
  throw oauthRejected("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

interface CodeRow {
  id: string;
  tenant_id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  redirect_uri_given: boolean;
  scopes: Scope[];
  code_challenge: string;
  resource: string;
  live: boolean;
}

const CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Redeems a code: the conditional update marks it used, so of two concurrent redemptions exactly one
 * gets it, and a failed check (wrong verifier, redirect URI, resource) still burns it. A code
 * presented a second time revokes the grant it was exchanged for (RFC 6749 4.1.2; OAuth 2.1 4.1.3).
 */
async function redeemCode(deps: Deps, client: ClientRow, input: ExchangeInput): Promise<IssuedTokens> {
  const invalid = () =>
    oauthRejected("invalid_grant", "authorization code is invalid, expired or already used");
  if (!CODE_PATTERN.test(input.code)) throw invalid();
  const hash = hashSecret(input.code);
  const [row] = await deps.db.sql<CodeRow[]>`
    update oauth_codes set used_at = now()
    where code_hash = ${hash} and used_at is null
    returning id, tenant_id, client_id, user_id, redirect_uri, redirect_uri_given, scopes, code_challenge,
              resource, expires_at > now() as live`;
  if (!row) {
    const [used] = await deps.db.sql<{ grant_id: string | null; client_id: string }[]>`
      select grant_id, client_id from oauth_codes where code_hash = ${hash}`;
    if (used?.grant_id && used.client_id === client.id) {
      const revoked = await revokeGrants(deps.db.sql, { grantId: used.grant_id });
      for (const id of revoked) deps.authenticator.forgetToken(id);
    }
    throw invalid();
  }
  if (!row.live || row.client_id !== client.id) throw invalid();
  if (
    row.redirect_uri_given
      ? input.redirectUri !== row.redirect_uri
      : input.redirectUri !== undefined && input.redirectUri !== row.redirect_uri
  ) {
    throw oauthRejected("invalid_grant", "redirect_uri does not match the authorization request");
  }
  if (
    !CODE_VERIFIER_PATTERN.test(input.codeVerifier) ||
    !verifierMatches(input.codeVerifier, row.code_challenge)
  ) {
    throw oauthRejected("invalid_grant", "code_verifier does not match the code_challenge (PKCE S256)");
  }
  if (input.resource !== undefined && !sameResource(input.resource, row.resource)) {
    throw oauthRejected("invalid_target", "resource differs from the one the code was issued for");
  }
  const withRefresh = client.grant_types.includes("refresh_token");
  let replaced: string[] = [];
  const issued = await deps.db.withTenant(row.tenant_id, async (tx) => {
    // One connection per client and user: consenting again replaces the previous one.
    replaced = await revokeGrants(tx, { tenantId: row.tenant_id, clientId: client.id, userId: row.user_id });
    const grantId = await insertGrant(tx, {
      tenantId: row.tenant_id,
      clientId: client.id,
      clientName: client.client_name,
      scopes: row.scopes,
      userId: row.user_id,
    });
    await tx`update oauth_codes set grant_id = ${grantId} where id = ${row.id}`;
    const tokens = await issueTokens(tx, {
      grantId,
      tenantId: row.tenant_id,
      scopes: row.scopes,
      refreshScopes: row.scopes,
      resource: row.resource,
      withRefresh,
    });
    await recordAudit(tx, {
      tenantId: row.tenant_id,
      actorUserId: row.user_id,
      action: "token.created",
      target: grantId,
      ip: input.ip,
      details: { kind: "oauth", client: client.client_name, scopes: row.scopes },
    });
    return tokens;
  });
  for (const id of replaced) deps.authenticator.forgetToken(id);
  return issued;
}

interface RefreshRow {
  id: string;
  tenant_id: string;
  grant_id: string;
  scopes: Scope[];
  resource: string;
  live: boolean;
}

/**
 * Rotates a refresh token: the presented one is marked used and a new pair issued. Presenting a used
 * refresh token again means it leaked (or the client lost an answer): the grant is revoked, and the
 * user connects again (OAuth 2.1 4.3.1 refresh token rotation).
 */
async function refresh(deps: Deps, client: ClientRow, input: ExchangeInput): Promise<IssuedTokens> {
  const invalid = (why = "refresh token is invalid, expired or revoked") =>
    oauthRejected("invalid_grant", why);
  if (!client.grant_types.includes("refresh_token")) {
    throw oauthRejected("unauthorized_client", "this client did not register the refresh_token grant");
  }
  if (!REFRESH_TOKEN_PATTERN.test(input.refreshToken)) throw invalid();
  const hash = hashSecret(input.refreshToken);
  const [row] = await deps.db.sql<RefreshRow[]>`
    update oauth_refresh_tokens r set used_at = now()
    from api_tokens g
    where r.token_hash = ${hash} and r.used_at is null and g.id = r.grant_id
      and g.oauth_client_id = ${client.id} and g.revoked_at is null
    returning r.id, r.tenant_id, r.grant_id, r.scopes, r.resource, r.expires_at > now() as live`;
  if (!row) {
    const [used] = await deps.db.sql<{ grant_id: string }[]>`
      select r.grant_id from oauth_refresh_tokens r join api_tokens g on g.id = r.grant_id
      where r.token_hash = ${hash} and r.used_at is not null and g.oauth_client_id = ${client.id}`;
    if (used) {
      const revoked = await revokeGrants(deps.db.sql, { grantId: used.grant_id });
      for (const id of revoked) deps.authenticator.forgetToken(id);
      throw invalid("refresh token was already used; the connection has been revoked, connect again");
    }
    throw invalid();
  }
  if (!row.live) throw invalid();
  const outside = input.scopes.find((s) => !row.scopes.includes(s));
  if (outside !== undefined) {
    throw oauthRejected("invalid_scope", `scope '${outside}' exceeds what the user granted`);
  }
  if (input.resource !== undefined && !sameResource(input.resource, row.resource)) {
    throw oauthRejected("invalid_target", "resource differs from the one the grant was issued for");
  }
  return deps.db.withTenant(row.tenant_id, (tx) =>
    issueTokens(tx, {
      grantId: row.grant_id,
      tenantId: row.tenant_id,
      scopes: input.scopes.length > 0 ? [...input.scopes] : row.scopes,
      refreshScopes: row.scopes,
      resource: row.resource,
      withRefresh: true,
    }),
  );
}
