import { unauthenticated } from "../errors.js";
import { type LimitsOverride, limitsFor } from "../plans/plans.js";
import type { Database } from "../store/database.js";
import { ANONYMOUS, type PlanName, type Principal, type Scope } from "./principal.js";
import { hashSecret, parseBearer, sameHash } from "./token-format.js";

/** Credentials as they arrive in request metadata. */
export interface Credentials {
  authorization?: string | null | undefined;
  sessionToken?: string | null | undefined;
}

export interface Authenticator {
  /** Resolves credentials to a principal; throws UNAUTHENTICATED for malformed or unknown ones. */
  resolve(credentials: Credentials): Promise<Principal>;
  /**
   * Drops cached lookups of a token at once and refuses it from now on in this process (called
   * after a revoke committed). Lookups that were already in flight when the revoke committed are
   * refused too, so the next request after a revoke answer is 401 even under concurrency.
   */
  forgetToken(tokenId: string): void;
  /** Drops cached lookups of a workspace's tokens (its plan changed): the next request reads it anew. */
  forgetTenant(tenantId: string): void;
}

export interface AuthenticatorOptions {
  db: Database;
  /** How long a token lookup may be served from memory; revocations take effect within it. */
  cacheTtlMs?: number;
  /** Minimum interval between last_used_at writes per token. */
  touchIntervalMs?: number;
  now?: () => number;
}

const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

interface TokenRow {
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

const ALL_SCOPES: ReadonlySet<Scope> = new Set<Scope>(["read", "write", "admin"]);

/**
 * Token and session lookup by SHA-256 hash, with a short-lived cache so authentication costs one
 * map lookup on the hot path (bench:auth). A revoked token is served from cache for at most
 * `cacheTtlMs` (default 1 s) by other processes, and not at all by the revoking one.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { db } = options;
  const ttl = options.cacheTtlMs ?? 1000;
  const touchInterval = options.touchIntervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { principal: Principal; expires: number }>();
  const lastTouched = new Map<string, number>();
  // Tokens revoked through this process. Kept for good: revocation is permanent, and the set holds
  // only ids (36 bytes each), bounded by the number of revokes this process served.
  const revoked = new Set<string>();
  const lookups = new Map<string, Promise<Principal>>();

  function touch(tokenId: string): void {
    const t = now();
    if ((lastTouched.get(tokenId) ?? 0) > t - touchInterval) return;
    lastTouched.set(tokenId, t);
    db.sql`update api_tokens set last_used_at = now()
           where id = ${tokenId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`.catch(
      () => lastTouched.delete(tokenId),
    );
  }

  function isRevoked(principal: Principal): boolean {
    return principal.kind === "token" && revoked.has(principal.tokenId);
  }

  async function fromToken(token: string): Promise<Principal> {
    const hash = hashSecret(token);
    const key = hash.toString("base64");
    const cached = cache.get(key);
    if (cached && cached.expires > now() && !isRevoked(cached.principal)) {
      if (cached.principal.kind === "token") touch(cached.principal.tokenId);
      return cached.principal;
    }
    cache.delete(key);
    // Requests with the same token arriving while its lookup runs share it: when the cached entry
    // expires under load, every connection missed at once and ran its own query (bench:load: ≈ 28
    // token lookups per second at 90 recalls per second, against one per TTL).
    let lookup = lookups.get(key);
    if (lookup === undefined) {
      lookup = lookUpToken(hash, key).finally(() => lookups.delete(key));
      lookups.set(key, lookup);
    }
    const principal = await lookup;
    // Revoked through this process after the shared lookup had read the token.
    if (isRevoked(principal)) throw unauthenticated("invalid or revoked API token");
    if (principal.kind === "token") touch(principal.tokenId);
    return principal;
  }

  async function lookUpToken(hash: Buffer, key: string): Promise<Principal> {
    // API tokens, and OAuth access tokens (same kmt_ format) whose grant, an api_tokens row of kind
    // 'oauth', is the token id: per-token limits, last use and revocation apply to the connection.
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
    // A lookup that started before a revoke committed may still have seen the token active.
    if (!row || !sameHash(row.token_hash, hash) || revoked.has(row.id)) {
      throw unauthenticated("invalid or revoked API token");
    }
    const principal: Principal = {
      kind: "token",
      tokenId: row.id,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      plan: row.plan,
      limits: limitsFor(row.plan, row.limits_override),
      scopes: new Set(row.scopes),
      ...(row.resource === null ? {} : { audience: row.resource }),
    };
    if (cache.size > 10_000) cache.clear();
    // An OAuth access token is not served from cache past its own expiry.
    const expires = Math.min(
      now() + ttl,
      row.expires_at ? row.expires_at.getTime() : Number.POSITIVE_INFINITY,
    );
    cache.set(key, { principal, expires });
    return principal;
  }

  async function fromSession(sessionToken: string): Promise<Principal> {
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

  return {
    async resolve(credentials) {
      const bearer = parseBearer(credentials.authorization);
      if (bearer && "error" in bearer) throw unauthenticated(bearer.error);
      if (bearer) return fromToken(bearer.token);
      if (credentials.sessionToken) return fromSession(credentials.sessionToken);
      return ANONYMOUS;
    },
    forgetToken(tokenId) {
      revoked.add(tokenId);
      lastTouched.delete(tokenId);
      for (const [key, entry] of cache) {
        if (entry.principal.kind === "token" && entry.principal.tokenId === tokenId) cache.delete(key);
      }
    },
    forgetTenant(tenantId) {
      for (const [key, entry] of cache) {
        if (entry.principal.kind === "token" && entry.principal.tenantId === tenantId) cache.delete(key);
      }
    },
  };
}
