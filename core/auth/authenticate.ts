import { unauthenticated } from "../errors.js";
import type { Database } from "../store/database.js";
import { ANONYMOUS, type Principal } from "./principal.js";
import { sessionPrincipal } from "./session-principal.js";
import { hashSecret, parseBearer, sameHash } from "./token-format.js";
import { readTokenRow, tokenPrincipal } from "./token-row.js";
import { TokenUseRecorder } from "./token-use-recorder.js";

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
  const uses = new TokenUseRecorder(db, touchInterval, now);
  // Tokens revoked through this process. Kept for good: revocation is permanent, and the set holds
  // only ids (36 bytes each), bounded by the number of revokes this process served.
  const revoked = new Set<string>();
  const lookups = new Map<string, Promise<Principal>>();

  function isRevoked(principal: Principal): boolean {
    return principal.kind === "token" && revoked.has(principal.tokenId);
  }

  async function fromToken(token: string): Promise<Principal> {
    const hash = hashSecret(token);
    const key = hash.toString("base64");
    const cached = cache.get(key);
    if (cached && cached.expires > now() && !isRevoked(cached.principal)) {
      if (cached.principal.kind === "token") uses.touch(cached.principal.tokenId);
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
    if (principal.kind === "token") uses.touch(principal.tokenId);
    return principal;
  }

  async function lookUpToken(hash: Buffer, key: string): Promise<Principal> {
    const row = await readTokenRow(db, hash);
    // A lookup that started before a revoke committed may still have seen the token active.
    if (!row || !sameHash(row.token_hash, hash) || revoked.has(row.id)) {
      throw unauthenticated("invalid or revoked API token");
    }
    const principal = tokenPrincipal(row);
    if (cache.size > 10_000) cache.clear();
    // An OAuth access token is not served from cache past its own expiry.
    const expires = Math.min(
      now() + ttl,
      row.expires_at ? row.expires_at.getTime() : Number.POSITIVE_INFINITY,
    );
    cache.set(key, { principal, expires });
    return principal;
  }

  return {
    async resolve(credentials) {
      const bearer = parseBearer(credentials.authorization);
      if (bearer && "error" in bearer) throw unauthenticated(bearer.error);
      if (bearer) return fromToken(bearer.token);
      if (credentials.sessionToken) return sessionPrincipal(db, credentials.sessionToken);
      return ANONYMOUS;
    },
    forgetToken(tokenId) {
      revoked.add(tokenId);
      uses.forget(tokenId);
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
