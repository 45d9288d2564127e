import { type LimitsOverride, limitsFor } from "../plans/plans.js";
import type { Database } from "../store/database.js";
import type { PlanName, Principal, Scope } from "./principal.js";

export interface TokenRow {
  id: string;
  tenant_id: string;
  slug: string;
  scopes: Scope[];
  token_hash: Buffer;
  plan: PlanName;
  limits_override: LimitsOverride;
  /** OAuth access tokens: the resource they were issued for, and when they expire. */
  resource: string | null;
  expires_at: Date | null;
}

/**
 * The active token with this hash: an API token, or an OAuth access token (same kmt_ format) whose
 * grant, an api_tokens row of kind 'oauth', is the token id — per-token limits, last use and
 * revocation apply to the connection.
 */
export async function readTokenRow(db: Database, hash: Buffer): Promise<TokenRow | undefined> {
  const [row] = await db.sql<TokenRow[]>`
    select t.id, t.tenant_id, tn.slug, t.scopes, t.token_hash, tn.plan, tn.limits_override,
           null::text as resource, null::timestamptz as expires_at
    from api_tokens t join tenants tn on tn.id = t.tenant_id
    where t.token_hash = ${hash} and t.revoked_at is null
    union all
    select g.id, g.tenant_id, tn.slug, a.scopes, a.token_hash, tn.plan, tn.limits_override,
           a.resource, a.expires_at
    from oauth_access_tokens a
    join api_tokens g on g.id = a.grant_id
    join tenants tn on tn.id = g.tenant_id
    where a.token_hash = ${hash} and a.expires_at > now() and g.revoked_at is null`;
  return row;
}

/** The principal of a token row. */
export function tokenPrincipal(row: TokenRow): Principal {
  return {
    kind: "token",
    tokenId: row.id,
    tenantId: row.tenant_id,
    tenantSlug: row.slug,
    plan: row.plan,
    limits: limitsFor(row.plan, row.limits_override),
    scopes: new Set(row.scopes),
    ...(row.resource === null ? {} : { audience: row.resource }),
  };
}
