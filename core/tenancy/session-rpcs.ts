import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { clientIpOf } from "../auth/caller.js";
import { principalKey } from "../auth/principal.js";
import { unauthenticated } from "../errors.js";
import { completeSignIn } from "./complete-sign-in.js";
import { sessionOf } from "./get-session.js";
import { onboard } from "./onboard.js";
import { planEnum, planName, scopeEnum } from "./proto-enums.js";
import { signOut } from "./sign-out.js";
import { startSignIn } from "./start-sign-in.js";
import type { TenancyHandlers, TenancyServiceDeps } from "./tenancy-deps.js";

/** Sessions: sign-in by magic link, sign-out, who the caller is, and a new user's onboarding. */
export function sessionRpcs(
  deps: TenancyServiceDeps,
): TenancyHandlers<"startSignIn" | "completeSignIn" | "signOut" | "getSession" | "onboard"> {
  return {
    async startSignIn(req) {
      await startSignIn(deps, { email: req.email, baseUrl: req.baseUrl, callbackPath: req.callbackPath });
      return {};
    },

    async completeSignIn(req, ctx) {
      const done = await completeSignIn(deps, { token: req.token, ip: clientIpOf(ctx) });
      return {
        sessionToken: done.sessionToken,
        expiresAt: timestampFromDate(done.expiresAt),
        userId: done.userId,
        email: done.email,
        needsOnboarding: done.needsOnboarding,
        ...(done.tenantId ? { tenantId: done.tenantId } : {}),
        redirectPath: done.redirectPath,
      };
    },

    async signOut(_req, ctx) {
      const principal = ctx.values.get(principalKey);
      if (principal.kind !== "session") throw unauthenticated("sign-out needs a signed-in session");
      await signOut(deps, {
        sessionId: principal.sessionId,
        userId: principal.userId,
        tenantId: principal.tenantId,
        ip: clientIpOf(ctx),
      });
      return {};
    },

    async getSession(_req, ctx) {
      const { plan, scopes, ...session } = sessionOf(ctx.values.get(principalKey));
      return { ...session, ...(plan ? { plan: planEnum(plan) } : {}), scopes: scopes.map(scopeEnum) };
    },

    async onboard(req, ctx) {
      const principal = ctx.values.get(principalKey);
      if (principal.kind !== "session") throw unauthenticated("onboarding needs a signed-in session");
      return onboard(deps, {
        userId: principal.userId,
        email: principal.email,
        slug: req.slug,
        name: req.name.trim(),
        plan: planName(req.plan),
        ip: clientIpOf(ctx),
      });
    },
  };
}
