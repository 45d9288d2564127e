import type { HandlerContext } from "@connectrpc/connect";
import { unauthenticated } from "../errors.js";
import type { PlanLimits } from "../plans/plans.js";
import { clientIpKey, type PlanName, type Principal, principalKey } from "./principal.js";

/** The workspace-bound caller of a tenant method (token, or session of a member). */
export interface TenantCaller {
  readonly tenantId: string;
  readonly plan: PlanName;
  readonly limits: PlanLimits;
  readonly principal: Exclude<Principal, { kind: "anonymous" }>;
  /** The user behind a session; unset for API tokens. */
  readonly userId: string | undefined;
  readonly tokenId: string | undefined;
}

/**
 * The caller of a method whose requirement is tenant or session-tenant. The auth interceptor has
 * already enforced the requirement; this only narrows the type (and fails closed if it did not).
 */
export function tenantCaller(ctx: HandlerContext): TenantCaller {
  const principal = ctx.values.get(principalKey);
  if (principal.kind === "anonymous" || !principal.tenantId || !principal.plan || !principal.limits) {
    throw unauthenticated("this call needs a workspace credential");
  }
  return {
    tenantId: principal.tenantId,
    plan: principal.plan,
    limits: principal.limits,
    principal,
    userId: principal.kind === "session" ? principal.userId : undefined,
    tokenId: principal.kind === "token" ? principal.tokenId : undefined,
  };
}

/** The caller's IP as the auth interceptor read it (audit entries, rate limits); unset when unknown. */
export function clientIpOf(ctx: HandlerContext): string | undefined {
  return ctx.values.get(clientIpKey);
}
