import { Code } from "@connectrpc/connect";
import type { BillingPeriodName, PaidPlan } from "../../config/config.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { coreError, notFound } from "../errors.js";
import {
  type BillingDeps,
  paymentProviderError,
  paymentsNotConfigured,
  requirePayments,
  type TenantBilling,
} from "./payments.js";

export interface CheckoutInput {
  readonly tenantId: string;
  readonly plan: PaidPlan;
  readonly period: BillingPeriodName;
  /** Prefills the payment page for a workspace without a payment customer yet. */
  readonly email: string | undefined;
  readonly baseUrl: string;
}

/**
 * A Stripe Checkout Session in subscription mode for the workspace (POST /api/checkout, and
 * onboarding with a paid plan). The tenant id travels as client_reference_id and in the metadata of
 * the session and of the subscription it creates, so the webhook knows whose plan to switch; nothing
 * changes here until the provider reports the payment.
 */
export async function createCheckout(deps: BillingDeps, input: CheckoutInput): Promise<string> {
  const payments = requirePayments(deps);
  const price = payments.prices[input.plan]?.[input.period];
  if (!price) {
    throw coreError(
      paymentsNotConfigured().code,
      ErrorReason.PAYMENTS_NOT_CONFIGURED,
      `payments not configured for the ${input.plan} plan billed ${input.period}: no price id set (STRIPE_PRICE_${input.plan.toUpperCase()}_${input.period.toUpperCase()})`,
    );
  }
  const [tenant] = await deps.db.sql<TenantBilling[]>`
    select id, slug, plan, payment_customer_id, payment_subscription_id from tenants where id = ${input.tenantId}`;
  if (!tenant) throw notFound("workspace");
  if (tenant.payment_subscription_id) {
    throw coreError(
      Code.AlreadyExists,
      ErrorReason.CONFLICT,
      "this workspace already has a subscription; change or cancel it in the customer portal (POST /api/subscription/portal)",
    );
  }
  const metadata = { tenant_id: tenant.id, plan: input.plan, billing: input.period };
  try {
    const session = await payments.stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price, quantity: 1 }],
      client_reference_id: tenant.id,
      metadata,
      subscription_data: { metadata },
      ...(tenant.payment_customer_id
        ? { customer: tenant.payment_customer_id }
        : input.email
          ? { customer_email: input.email }
          : {}),
      success_url: `${input.baseUrl}/dashboard/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${input.baseUrl}/dashboard/billing?checkout=cancelled`,
    });
    if (!session.url) throw new Error(`checkout session ${session.id} has no url`);
    return session.url;
  } catch (error) {
    throw paymentProviderError(deps.logger, error, "start the checkout");
  }
}
