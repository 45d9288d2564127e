import type Stripe from "stripe";
import type { BillingPeriodName, PaidPlan } from "../../config/config.js";
import type { PlanName } from "../auth/principal.js";
import { notFound } from "../errors.js";
import { PLANS } from "../plans/plans.js";
import { type BillingDeps, PAID_PLANS, type Payments, planOfPrice, type TenantBilling } from "./payments.js";

/** A price as shown: the amount in the currency's smallest unit and the ISO 4217 code. */
export interface PlanPriceView {
  readonly unitAmount: number;
  readonly currency: string;
}

export interface PlanOfferView {
  readonly plan: PlanName;
  readonly memoryLimit: number | undefined;
  readonly requestsPerMinutePerToken: number;
  readonly auditRetentionDays: number;
  readonly mcpRequestsPerMinutePerIp: number | undefined;
  readonly features: readonly string[];
  readonly prices: Partial<Record<BillingPeriodName, PlanPriceView>>;
}

export interface SubscriptionView {
  readonly plan: PlanName;
  readonly billing: BillingPeriodName;
  readonly status: string;
  readonly currentPeriodEnd: Date | undefined;
  readonly cancelAt: Date | undefined;
}

export interface BillingView {
  readonly currentPlan: PlanName;
  readonly paymentsConfigured: boolean;
  readonly hasPaymentCustomer: boolean;
  readonly subscription: SubscriptionView | undefined;
  readonly plans: readonly PlanOfferView[];
}

/** Prices change rarely (a new price id is a new configuration); read each at most every 10 min. */
const PRICE_TTL_MS = 10 * 60_000;
const priceCaches = new WeakMap<Payments, Map<string, { price: Stripe.Price; readAt: number }>>();

async function retrievePrice(payments: Payments, id: string): Promise<Stripe.Price> {
  let cache = priceCaches.get(payments);
  if (!cache) {
    cache = new Map();
    priceCaches.set(payments, cache);
  }
  const hit = cache.get(id);
  if (hit && Date.now() - hit.readAt < PRICE_TTL_MS) return hit.price;
  const price = await payments.stripe.prices.retrieve(id, { expand: ["currency_options"] });
  cache.set(id, { price, readAt: Date.now() });
  return price;
}

/**
 * The price in `currency` when the price is sold in it (Stripe multi-currency prices list the
 * others under currency_options), else in the price's own currency.
 */
function priceIn(price: Stripe.Price, currency: string | undefined): PlanPriceView | undefined {
  const option = currency && currency !== price.currency ? price.currency_options?.[currency] : undefined;
  if (option?.unit_amount != null && currency) return { unitAmount: option.unit_amount, currency };
  if (price.unit_amount == null) return undefined;
  return { unitAmount: price.unit_amount, currency: price.currency };
}

/** The subscription as the provider has it now; undefined (logged) when it cannot be read. */
async function readSubscription(
  deps: BillingDeps,
  payments: Payments,
  tenant: TenantBilling,
): Promise<{ view: SubscriptionView; currency: string } | undefined> {
  if (!tenant.payment_subscription_id) return undefined;
  try {
    const subscription = await payments.stripe.subscriptions.retrieve(tenant.payment_subscription_id);
    const items = subscription.items?.data ?? [];
    const priceId = items[0]?.price?.id;
    const ends = items.map((i) => i.current_period_end ?? 0).filter((end) => end > 0);
    const periodEnd = ends.length > 0 ? Math.max(...ends) : undefined;
    const cancelAt = subscription.cancel_at ?? (subscription.cancel_at_period_end ? periodEnd : undefined);
    const yearly = Object.values(payments.prices).some((byPeriod) => byPeriod?.yearly === priceId);
    return {
      view: {
        plan: planOfPrice(payments.prices, priceId) ?? tenant.plan,
        billing: yearly || items[0]?.price?.recurring?.interval === "year" ? "yearly" : "monthly",
        status: subscription.status,
        currentPeriodEnd: periodEnd === undefined ? undefined : new Date(periodEnd * 1000),
        cancelAt: cancelAt === undefined || cancelAt === null ? undefined : new Date(cancelAt * 1000),
      },
      currency: subscription.currency,
    };
  } catch (error) {
    deps.logger.warn({ err: error, tenantId: tenant.id }, "billing page: subscription not readable");
    return undefined;
  }
}

/** The customer's currency (set by Stripe with the first subscription); undefined when unknown. */
async function customerCurrency(
  deps: BillingDeps,
  payments: Payments,
  customerId: string,
): Promise<string | undefined> {
  try {
    const customer = await payments.stripe.customers.retrieve(customerId);
    return "currency" in customer && customer.currency ? customer.currency : undefined;
  } catch (error) {
    deps.logger.warn({ err: error }, "billing page: payment customer not readable");
    return undefined;
  }
}

/**
 * GET /api/billing: everything the billing page shows. The plans and their limits come from the one
 * plan table (plans.ts), the prices from the configured Stripe prices (read from Stripe, in the
 * customer's currency where the price has one for it), the subscription's period end and a scheduled
 * cancellation from Stripe, falling back to what the payment webhooks stored when Stripe cannot be
 * read (the page still works, without the period end). Without payments: plans without prices.
 */
export async function getBilling(deps: BillingDeps, tenantId: string): Promise<BillingView> {
  const [tenant] = await deps.db.sql<TenantBilling[]>`
    select id, slug, plan, payment_customer_id, payment_subscription_id, subscription_cancel_at,
           subscription_event_at
      from tenants where id = ${tenantId}`;
  if (!tenant) throw notFound("workspace");
  const payments = deps.payments;
  const read = payments ? await readSubscription(deps, payments, tenant) : undefined;
  const stored: SubscriptionView | undefined =
    payments && tenant.payment_subscription_id
      ? {
          plan: tenant.plan,
          billing: "monthly",
          status: "unknown",
          currentPeriodEnd: undefined,
          cancelAt: tenant.subscription_cancel_at ?? undefined,
        }
      : undefined;
  const currency =
    read?.currency ??
    (payments && tenant.payment_customer_id
      ? await customerCurrency(deps, payments, tenant.payment_customer_id)
      : undefined);
  const plans = await Promise.all(
    (Object.keys(PLANS) as PlanName[]).map(async (plan): Promise<PlanOfferView> => {
      const limits = PLANS[plan];
      const prices: Partial<Record<BillingPeriodName, PlanPriceView>> = {};
      if (payments && (PAID_PLANS as readonly string[]).includes(plan)) {
        for (const period of ["monthly", "yearly"] as const) {
          const id = payments.prices[plan as PaidPlan]?.[period];
          if (!id) continue;
          try {
            const shown = priceIn(await retrievePrice(payments, id), currency);
            if (shown) prices[period] = shown;
          } catch (error) {
            deps.logger.warn({ err: error, price: id }, "billing page: configured price not readable");
          }
        }
      }
      return {
        plan,
        memoryLimit: limits.memoryLimit,
        requestsPerMinutePerToken: limits.requestsPerMinutePerToken,
        auditRetentionDays: limits.auditRetentionDays,
        mcpRequestsPerMinutePerIp: limits.mcpRequestsPerMinutePerIp,
        features: [...limits.features],
        prices,
      };
    }),
  );
  return {
    currentPlan: tenant.plan,
    paymentsConfigured: payments !== undefined,
    hasPaymentCustomer: payments !== undefined && tenant.payment_customer_id !== null,
    subscription: read?.view ?? stored,
    plans,
  };
}
