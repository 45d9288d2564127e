import { sharedOutboundGuard } from "../../lib/net/outbound-guard.js";
import type { Authenticator } from "../auth/authenticate.js";
import { onboardingCheckout } from "../billing/billing-service.js";
import { type BillingDeps, createPayments } from "../billing/payments.js";
import { parseMasterKey } from "../keys/key-cipher.js";
import { createTenantModels, type TenantModels } from "../keys/tenant-models.js";
import { createMagicLinkMailer } from "../tenancy/magic-link-mailer.js";
import { createClientMetadataDocuments } from "../tenancy/oauth/client-metadata-documents.js";
import { createTenancyService } from "../tenancy/tenancy-service.js";
import type { CoreOptions } from "./core-options.js";

export interface AccountServices {
  /** Each workspace's embedder and reranker (its own provider keys, BYOK, or the defaults). */
  readonly models: TenantModels;
  readonly tenancy: ReturnType<typeof createTenancyService>;
  /** What billing, onboarding and cancellation share (payments, mail, forgetting a tenant's auth). */
  readonly billingDeps: BillingDeps;
}

/** Accounts: mail, payments, the workspaces' models and TenancyService over them. */
export function createAccountServices(options: CoreOptions, authenticator: Authenticator): AccountServices {
  const { db } = options;
  const mailer = createMagicLinkMailer({
    smtpUrl: options.mail?.smtpUrl,
    from: options.mail?.from ?? "Memory Service <no-reply@localhost>",
    logger: options.logger,
  });
  const billingDeps = {
    db,
    logger: options.logger,
    publicUrl: options.publicUrl,
    payments: options.stripe ? createPayments(options.stripe) : undefined,
    sendMail: (message: { to: string; subject: string; text: string }) => mailer.sendMessage(message),
    forgetTenant: (tenantId: string) => authenticator.forgetTenant(tenantId),
  };
  // One guard for every user-given URL (lib/net/outbound-guard.ts, ADR 0360), set per kind of URL.
  const providerGuard = sharedOutboundGuard(options.providerAllowPrivateUrls ?? false);
  const models = createTenantModels({
    db,
    masterKey: options.masterKey === undefined ? undefined : parseMasterKey(options.masterKey),
    defaultEmbedder: options.embedder,
    defaultReranker: options.reranker,
    logger: options.logger,
    guard: providerGuard,
    ...(options.providerClientOptions ? { clientOptions: options.providerClientOptions } : {}),
  });
  const tenancy = createTenancyService({
    db,
    authenticator,
    mailer,
    publicUrl: options.publicUrl,
    logger: options.logger,
    startCheckout: billingDeps.payments ? onboardingCheckout(billingDeps) : undefined,
    selfHostedPlan: options.selfHostedPlan,
    keys: {
      masterKey: options.masterKey === undefined ? undefined : parseMasterKey(options.masterKey),
      guard: providerGuard,
      models,
    },
    clientMetadataDocuments: createClientMetadataDocuments({
      db,
      guard: sharedOutboundGuard(options.oauthClientMetadataAllowPrivateUrls ?? false),
    }),
  });
  return { models, tenancy, billingDeps };
}
