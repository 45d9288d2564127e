import { Code } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { OutboundGuard } from "../../lib/net/outbound-guard.js";
import type { TenantCaller } from "../auth/caller.js";
import { coreError, planGateError } from "../errors.js";
import { plansWith } from "../plans/plans.js";
import { upgradeUrl } from "../plans/upgrade-url.js";
import type { Database } from "../store/database.js";
import type { MasterKey } from "./key-cipher.js";
import type { TenantModels } from "./tenant-models.js";

/** What the provider-key use cases need (built once in core/create-core.ts). */
export interface ProviderKeyDeps {
  readonly db: Database;
  readonly publicUrl: string;
  readonly logger: Logger;
  /** MASTER_KEY; unset: keys can be listed and deleted but not stored, tested or used. */
  readonly masterKey: MasterKey | undefined;
  /** The SSRF guard of provider base URLs (private addresses allowed by PROVIDER_ALLOW_PRIVATE_URLS). */
  readonly guard: OutboundGuard;
  readonly models: TenantModels;
}

/** Spec "Authentication" 7: provider keys need plus or higher (402 with the plan-gate body). */
export function requireByok(deps: Pick<ProviderKeyDeps, "publicUrl">, caller: TenantCaller): void {
  if (caller.limits.features.has("byok")) return;
  throw planGateError({
    feature: "byok",
    currentPlan: caller.plan,
    requiredPlans: plansWith("byok"),
    message: "provider keys (BYOK) need the plus plan or higher",
    upgradeUrl: upgradeUrl(deps.publicUrl),
  });
}

/** Without MASTER_KEY nothing can be sealed or opened: 503 naming the setting. */
export function requireMasterKey(deps: Pick<ProviderKeyDeps, "masterKey">): MasterKey {
  if (deps.masterKey !== undefined) return deps.masterKey;
  throw coreError(
    Code.Unavailable,
    ErrorReason.UNAVAILABLE,
    "provider keys are not available: the operator has not configured MASTER_KEY (32 random bytes, base64)",
  );
}
