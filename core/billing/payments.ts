import { hkdfSync } from "node:crypto";
import { Code } from "@connectrpc/connect";
import type Stripe from "stripe";
import type { BillingPeriodName, PaidPlan, StripeConfig } from "../../config/config.js";
import type { Logger } from "../../config/logger.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { requireOnUse } from "../../lib/require-on-use.js";
import type { PlanName } from "../auth/principal.js";
import { coreError } from "../errors.js";
import type { Database } from "../store/database.js";

/** The payment provider as billing uses it: the official Stripe SDK plus the configuration. */
export interface Payments {
  readonly stripe: Stripe;
  readonly webhookSecret: string;
  readonly prices: StripeConfig["prices"];
  /** Signs the Kündigung confirmation tokens (derived from the secret key, never stored). */
  readonly cancellationKey: Buffer;
}

/** Sends one plain-text mail (the magic-link mailer's transport, passed in by create-core). */
export type SendMail = (message: { to: string; subject: string; text: string }) => Promise<void>;

export interface BillingDeps {
  readonly db: Database;
  readonly logger: Logger;
  readonly publicUrl: string;
  /** Unset: payments not configured (UNAVAILABLE, HTTP 503, on the payment routes). */
  readonly payments: Payments | undefined;
  readonly sendMail: SendMail;
  /** Drops the authenticator's cached principals of a tenant after its plan changed. */
  readonly forgetTenant: (tenantId: string) => void;
}

export const PAID_PLANS: readonly PaidPlan[] = ["plus", "pro", "team", "api"];

export function isPaidPlan(value: unknown): value is PaidPlan {
  return typeof value === "string" && (PAID_PLANS as readonly string[]).includes(value);
}

/**
 * The SDK client, pointed at STRIPE_API_BASE when set (tests, stripe-mock). The SDK is loaded here,
 * when payments are configured, not when this module is: its 218 modules (1 MB of source) held ≈ 4 MB
 * of every process's heap whether or not it ever took a payment (docs/observability.md "Idle memory").
 */
export function createPayments(config: StripeConfig): Payments {
  const StripeClient = requireOnUse("stripe") as typeof Stripe;
  const stripe = new StripeClient(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: "memory-service" },
    ...(config.apiBase
      ? { protocol: config.apiBase.protocol, host: config.apiBase.host, port: config.apiBase.port }
      : {}),
  });
  const cancellationKey = Buffer.from(
    hkdfSync("sha256", config.secretKey, "", "memory-service kuendigung confirmation v1", 32),
  );
  return { stripe, webhookSecret: config.webhookSecret, prices: config.prices, cancellationKey };
}

export const paymentsNotConfigured = () =>
  coreError(
    Code.Unavailable,
    ErrorReason.PAYMENTS_NOT_CONFIGURED,
    "payments not configured: this server has no payment provider (STRIPE_SECRET_KEY)",
  );

export function requirePayments(deps: BillingDeps): Payments {
  if (!deps.payments) throw paymentsNotConfigured();
  return deps.payments;
}

/**
 * A failed call to the payment provider: 502 with a message to retry; the provider's own message
 * goes to the log only (it may name ids of other objects).
 */
export function paymentProviderError(logger: Logger, cause: unknown, what: string) {
  logger.error({ err: cause }, `payment provider call failed: ${what}`);
  return coreError(
    Code.Unavailable,
    ErrorReason.PROVIDER_ERROR,
    `the payment provider could not ${what}; try again in a moment`,
    { cause },
  );
}

/** Which plan a Stripe price id stands for, from the configured prices. */
export function planOfPrice(prices: Payments["prices"], priceId: string | undefined): PaidPlan | undefined {
  if (!priceId) return undefined;
  for (const plan of PAID_PLANS) {
    const byPeriod = prices[plan] ?? {};
    for (const period of ["monthly", "yearly"] as const satisfies BillingPeriodName[]) {
      if (byPeriod[period] === priceId) return plan;
    }
  }
  return undefined;
}

export interface TenantBilling {
  id: string;
  slug: string;
  plan: PlanName;
  payment_customer_id: string | null;
  payment_subscription_id: string | null;
  subscription_cancel_at: Date | null;
  subscription_event_at: Date | null;
}
