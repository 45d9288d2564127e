import { unauthenticated } from "../errors.js";
import { type LimitsOverride, limitsFor } from "../plans/plans.js";
import type { Database } from "../store/database.js";
import type { PlanName, Principal, Scope } from "./principal.js";
import { hashSecret, sameHash } from "./token-format.js";

const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const ALL_SCOPES: ReadonlySet<Scope> = new Set<Scope>(["read", "write", "admin"]);

interface SessionRow {
  id: string;
  user_id: string;
  email: string;
  token_hash: Buffer;
  tenant_id: string | null;
  slug: string | null;
  plan: PlanName | null;
  limits_override: LimitsOverride | null;
}

/** A dashboard session's principal (the user and their first workspace); not cached: sign-out is immediate. */
export async function sessionPrincipal(db: Database, sessionToken: string): Promise<Principal> {
  if (!SESSION_TOKEN_PATTERN.test(sessionToken)) throw unauthenticated("malformed session");
  const hash = hashSecret(sessionToken);
  const [row] = await db.sql<SessionRow[]>`
    select s.id, s.user_id, u.email, s.token_hash, m.tenant_id, tn.slug, tn.plan, tn.limits_override
    from sessions s
    join users u on u.id = s.user_id
    left join lateral (
      select tenant_id from memberships where user_id = s.user_id order by created_at limit 1
    ) m on true
    left join tenants tn on tn.id = m.tenant_id
    where s.token_hash = ${hash} and s.revoked_at is null and s.expires_at > now()`;
  if (!row || !sameHash(row.token_hash, hash)) throw unauthenticated("session expired or signed out");
  return {
    kind: "session",
    sessionId: row.id,
    userId: row.user_id,
    email: row.email,
    tenantId: row.tenant_id ?? undefined,
    ...(row.slug ? { tenantSlug: row.slug } : {}),
    plan: row.plan ?? undefined,
    limits: row.plan ? limitsFor(row.plan, row.limits_override ?? {}) : undefined,
    scopes: ALL_SCOPES,
  };
}
