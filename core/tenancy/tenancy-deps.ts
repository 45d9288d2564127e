import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "../../config/logger.js";
import type { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import type { Authenticator } from "../auth/authenticate.js";
import type { PlanName } from "../auth/principal.js";
import type { ProviderKeyDeps } from "../keys/byok-guards.js";
import type { Database } from "../store/database.js";
import type { MagicLinkMailer } from "./magic-link-mailer.js";
import type { ClientMetadataDocuments } from "./oauth/client-metadata-documents.js";
import type { StartCheckout } from "./onboard.js";

export interface TenancyServiceDeps {
  readonly db: Database;
  readonly authenticator: Authenticator;
  readonly mailer: MagicLinkMailer;
  readonly publicUrl: string;
  readonly logger: Logger;
  /** Set by billing when payments are configured; unset: paid plans at onboarding answer 402. */
  readonly startCheckout?: StartCheckout | undefined;
  /** SELF_HOSTED_PLAN: onboarding grants this plan without payment. */
  readonly selfHostedPlan?: PlanName | undefined;
  /** Provider keys (BYOK): master key, URL policy and the per-workspace model resolver. */
  readonly keys: Omit<ProviderKeyDeps, "db" | "publicUrl" | "logger">;
  /** OAuth clients named by the URL of a client ID metadata document (ADR 0400). */
  readonly clientMetadataDocuments: ClientMetadataDocuments;
}

/** Some of TenancyService's handlers: each module implements the RPCs of one concern. */
export type TenancyHandlers<K extends keyof ServiceImpl<typeof TenancyService>> = Pick<
  ServiceImpl<typeof TenancyService>,
  K
>;
