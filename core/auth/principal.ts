import { createContextKey } from "@connectrpc/connect";
import type { PlanLimits, PlanName } from "../plans/plans.js";

export type Scope = "read" | "write" | "admin";

/** Who is calling, resolved once per request by the auth interceptor from metadata. */
export type Principal =
  | {
      readonly kind: "token";
      readonly tokenId: string;
      readonly tenantId: string;
      /** The workspace's slug, resolved with the token (GetSession answers without a query). */
      readonly tenantSlug?: string;
      readonly plan: PlanName;
      readonly limits: PlanLimits;
      readonly scopes: ReadonlySet<Scope>;
      /**
       * OAuth access tokens only: the resource (RFC 8707 audience) the token was issued for. Core
       * accepts such a token only on calls for that resource (auth-interceptor.ts).
       */
      readonly audience?: string;
    }
  | {
      readonly kind: "session";
      readonly sessionId: string;
      readonly userId: string;
      readonly email: string;
      /** Unset until onboarding created the user's tenant. */
      readonly tenantId: string | undefined;
      readonly tenantSlug?: string;
      readonly plan: PlanName | undefined;
      readonly limits: PlanLimits | undefined;
      /** A signed-in member acts with every scope in their own workspace. */
      readonly scopes: ReadonlySet<Scope>;
    }
  | { readonly kind: "anonymous" };

export const ANONYMOUS: Principal = { kind: "anonymous" };

/** The principal of the current call; set by the auth interceptor before any handler runs. */
export const principalKey = createContextKey<Principal>(ANONYMOUS, { description: "principal" });

/** Client address as seen by the edge (or the gRPC socket); used for per-IP limits and audit. */
export const clientIpKey = createContextKey<string | undefined>(undefined, { description: "client ip" });

export type { PlanName };
