import type { PlanName, Principal, Scope } from "../auth/principal.js";
import { unauthenticated } from "../errors.js";

export interface SessionView {
  readonly credential: "session" | "token";
  readonly userId?: string;
  /** The API token, or an OAuth access token's grant (stable across refreshes); unset for sessions. */
  readonly tokenId?: string;
  readonly email?: string;
  readonly tenantId?: string;
  readonly tenantSlug?: string;
  readonly plan?: PlanName;
  readonly scopes: Scope[];
  /** Feature words of the workspace's plan (plans.ts); empty without a workspace. */
  readonly features: string[];
}

/**
 * Who the caller is, from the principal the auth interceptor resolved: no query, so GetSession is
 * the cheap authenticated call bench:auth measures.
 */
export function sessionOf(principal: Principal): SessionView {
  if (principal.kind === "anonymous") throw unauthenticated();
  // A session acts with every scope, but only inside a workspace: none before onboarding.
  const scopes = principal.tenantId
    ? (["read", "write", "admin"] as const).filter((s) => principal.scopes.has(s))
    : [];
  const tenant = {
    ...(principal.tenantId ? { tenantId: principal.tenantId } : {}),
    ...(principal.tenantSlug ? { tenantSlug: principal.tenantSlug } : {}),
    ...(principal.plan ? { plan: principal.plan } : {}),
  };
  const features = principal.tenantId ? [...(principal.limits?.features ?? [])] : [];
  if (principal.kind === "token") {
    return { credential: "token", tokenId: principal.tokenId, ...tenant, scopes, features };
  }
  return {
    credential: "session",
    userId: principal.userId,
    email: principal.email,
    ...tenant,
    scopes,
    features,
  };
}
