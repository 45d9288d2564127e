import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../../gen/memory/v1/errors_pb.js";
import type { Scope } from "../../auth/principal.js";
import { generateApiToken, generateSecret, hashSecret } from "../../auth/token-format.js";
import { coreError } from "../../errors.js";
import type { Sql, TransactionSql } from "../../store/database.js";
import { MAX_ACTIVE_TOKENS } from "../api-tokens.js";
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_DAYS } from "./oauth-rules.js";

/** Refresh tokens: kmr_ + 43 base64url characters, told apart from access tokens at a glance. */
export const REFRESH_TOKEN_PATTERN = /^kmr_[A-Za-z0-9_-]{43}$/;

export interface IssuedTokens {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly refreshToken: string | undefined;
  readonly scopes: Scope[];
}

/**
 * Creates the grant (an api_tokens row of kind 'oauth') inside the caller's transaction, under the
 * same lock and 50-token cap as API tokens. The connection it replaces (same client, same user) was
 * revoked before.
 */
export async function insertGrant(
  tx: TransactionSql,
  input: { tenantId: string; clientId: string; clientName: string; scopes: Scope[]; userId: string },
): Promise<string> {
  await tx`select 1 from tenants where id = ${input.tenantId} for update`;
  const [count] = await tx<{ n: number }[]>`
    select count(*)::int as n from api_tokens where tenant_id = ${input.tenantId} and revoked_at is null`;
  if ((count?.n ?? 0) >= MAX_ACTIVE_TOKENS) {
    throw coreError(
      Code.FailedPrecondition,
      ErrorReason.CONFLICT,
      `a workspace can have at most ${MAX_ACTIVE_TOKENS} active tokens; revoke one first`,
    );
  }
  const [row] = await tx<{ id: string }[]>`
    insert into api_tokens (tenant_id, name, token_hash, scopes, created_by, kind, oauth_client_id)
    values (${input.tenantId}, ${input.clientName}, null, ${input.scopes}, ${input.userId}, 'oauth', ${input.clientId})
    returning id`;
  if (!row) throw new Error("grant insert returned no row");
  return row.id;
}

/** A new access token (and refresh token, when the client may refresh) of a grant. */
export async function issueTokens(
  tx: TransactionSql,
  input: {
    grantId: string;
    tenantId: string;
    scopes: Scope[];
    /** The refresh token keeps the grant's scopes even when this access token is narrower. */
    refreshScopes: Scope[];
    resource: string;
    withRefresh: boolean;
  },
): Promise<IssuedTokens> {
  const accessToken = generateApiToken();
  await tx`
    insert into oauth_access_tokens (tenant_id, grant_id, token_hash, scopes, resource, expires_at)
    values (${input.tenantId}, ${input.grantId}, ${hashSecret(accessToken)}, ${input.scopes}, ${input.resource},
            now() + make_interval(secs => ${ACCESS_TOKEN_TTL_SECONDS}))`;
  let refreshToken: string | undefined;
  if (input.withRefresh) {
    refreshToken = `kmr_${generateSecret()}`;
    await tx`
      insert into oauth_refresh_tokens (tenant_id, grant_id, token_hash, scopes, resource, expires_at)
      values (${input.tenantId}, ${input.grantId}, ${hashSecret(refreshToken)}, ${input.refreshScopes},
              ${input.resource}, now() + make_interval(days => ${REFRESH_TOKEN_TTL_DAYS}))`;
  }
  return { accessToken, expiresInSeconds: ACCESS_TOKEN_TTL_SECONDS, refreshToken, scopes: input.scopes };
}

/**
 * Revokes OAuth grants (the connection with all its tokens); returns the ids that were active. The
 * caller passes them to `authenticator.forgetToken` once the change committed.
 */
export async function revokeGrants(
  sql: Sql | TransactionSql,
  where: { grantId: string } | { tenantId: string; clientId: string; userId: string },
): Promise<string[]> {
  const rows =
    "grantId" in where
      ? await sql<{ id: string }[]>`
          update api_tokens set revoked_at = now()
          where id = ${where.grantId} and kind = 'oauth' and revoked_at is null returning id`
      : await sql<{ id: string }[]>`
          update api_tokens set revoked_at = now()
          where tenant_id = ${where.tenantId} and oauth_client_id = ${where.clientId}
            and created_by = ${where.userId} and kind = 'oauth' and revoked_at is null
          returning id`;
  return rows.map((r) => r.id);
}
