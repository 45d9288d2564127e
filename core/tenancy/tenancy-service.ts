import type { ServiceImpl } from "@connectrpc/connect";
import type { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import type { ProviderKeyDeps } from "../keys/byok-guards.js";
import { providerKeyRpcs } from "../keys/provider-key-rpcs.js";
import { exportRpcs } from "./export-rpcs.js";
import { oauthClientRpcs } from "./oauth-client-rpcs.js";
import { sessionRpcs } from "./session-rpcs.js";
import type { TenancyServiceDeps } from "./tenancy-deps.js";
import { tokenRpcs } from "./token-rpcs.js";

export type { TenancyServiceDeps } from "./tenancy-deps.js";

/**
 * TenancyService: sessions (magic links) and onboarding, API tokens, provider keys (BYOK) and the
 * workspace's model selection, the exports, and OAuth clients — one module of handlers per concern
 * (the BYOK handlers with the rest of BYOK in core/keys/), one use case per file behind them. The auth
 * interceptor has enforced each method's requirement (method-requirements.ts) before a handler runs.
 */
export function createTenancyService(deps: TenancyServiceDeps): Partial<ServiceImpl<typeof TenancyService>> {
  const keyDeps: ProviderKeyDeps = {
    ...deps.keys,
    db: deps.db,
    publicUrl: deps.publicUrl,
    logger: deps.logger,
  };
  return {
    ...sessionRpcs(deps),
    ...tokenRpcs(deps),
    ...providerKeyRpcs(keyDeps),
    ...exportRpcs(deps),
    ...oauthClientRpcs(deps),
  };
}
