import type Stripe from "stripe";
import { invalidArgument } from "../errors.js";
import type { TransactionSql } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import {
  type BillingDeps,
  isPaidPlan,
  type Payments,
  planOfPrice,
  requirePayments,
  type TenantBilling,
} from "./payments.js";

/** Stripe's default and the spec's window: a signature older than 5 minutes is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Outcome = "applied" | "ignored" | "unknown_tenant" | "stale" | "pending";

interface Effect {
  readonly outcome: Outcome;
  readonly tenantId?: string;
}

/**
 * POST /api/checkout/webhook: verifies the Provider-Signature header over the raw body with the
 * SDK (Stripe's `t=…,v1=…` scheme, 5-minute tolerance), then applies the event exactly once: the
 * event id is inserted into payment_events in the same transaction as its effect, so a replay, or a
 * second delivery racing the first, conflicts on the key and changes nothing.
 */
export async function handlePaymentEvent(
  deps: BillingDeps,
  input: { payload: Uint8Array; signature: string },
): Promise<{ processed: boolean; eventType: string }> {
  const payments = requirePayments(deps);
  if (!input.signature) throw invalidArgument("Provider-Signature", "missing Provider-Signature header");
  let event: Stripe.Event;
  try {
    event = payments.stripe.webhooks.constructEvent(
      Buffer.from(input.payload),
      input.signature,
      payments.webhookSecret,
      SIGNATURE_TOLERANCE_SECONDS,
    );
  } catch (error) {
    deps.logger.warn({ reason: (error as Error).message }, "payment webhook refused: invalid signature");
    throw invalidArgument(
      "Provider-Signature",
      "invalid Provider-Signature: the signature does not match the body, or its timestamp is older than 5 minutes",
    );
  }
  if (typeof event.id !== "string" || !event.id || typeof event.type !== "string") {
    throw invalidArgument("body", "not a payment-provider event (id and type required)");
  }
  const changed: string[] = [];
  const processed = await deps.db.sql.begin(async (tx) => {
    const claimed = await tx`
      insert into payment_events (event_id, event_type, outcome, created_at)
      values (${event.id}, ${event.type}, 'pending', to_timestamp(${event.created ?? 0}))
      on conflict (event_id) do nothing
      returning event_id`;
    if (claimed.length === 0) return false;
    const effect = await applyEvent(tx, payments, deps, event);
    await tx`
      update payment_events set outcome = ${effect.outcome}, tenant_id = ${effect.tenantId ?? null}
      where event_id = ${event.id}`;
    if (effect.outcome === "applied" && effect.tenantId) changed.push(effect.tenantId);
    return true;
  });
  // Plans are read with each credential (cached up to 1 s): the change applies on the next request.
  for (const tenantId of changed) deps.forgetTenant(tenantId);
  deps.logger.info({ eventId: event.id, eventType: event.type, processed }, "payment event received");
  return { processed, eventType: event.type };
}

async function applyEvent(
  tx: TransactionSql,
  payments: Payments,
  deps: BillingDeps,
  event: Stripe.Event,
): Promise<Effect> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return activate(tx, deps, event, event.data.object);
    case "customer.subscription.updated":
      return updateSubscription(tx, payments, deps, event, event.data.object);
    case "customer.subscription.deleted":
      return endSubscription(tx, deps, event, event.data.object);
    default:
      return { outcome: "ignored" };
  }
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);

const eventTime = (event: Stripe.Event) => new Date((event.created ?? 0) * 1000);

async function lockTenant(tx: TransactionSql, tenantId: string): Promise<TenantBilling | undefined> {
  if (!UUID.test(tenantId)) return undefined;
  const [tenant] = await tx<TenantBilling[]>`
    select id, slug, plan, payment_customer_id, payment_subscription_id, subscription_cancel_at,
           subscription_event_at
    from tenants where id = ${tenantId} for update`;
  return tenant;
}

/** checkout.session.completed (paid or free of charge) → the plan bought is active. */
async function activate(
  tx: TransactionSql,
  deps: BillingDeps,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
): Promise<Effect> {
  if (session.mode !== "subscription") return { outcome: "ignored" };
  // Delayed payment methods (SEPA debit): activation waits for async_payment_succeeded.
  if (event.type === "checkout.session.completed" && session.payment_status === "unpaid") {
    return { outcome: "pending" };
  }
  const tenantId = session.client_reference_id ?? session.metadata?.tenant_id ?? "";
  const tenant = await lockTenant(tx, tenantId);
  if (!tenant) {
    deps.logger.warn({ eventId: event.id, tenantId }, "payment event for an unknown workspace ignored");
    return { outcome: "unknown_tenant" };
  }
  const plan = session.metadata?.plan;
  if (!isPaidPlan(plan)) {
    deps.logger.error({ eventId: event.id, plan }, "checkout session without a known plan in its metadata");
    return { outcome: "ignored", tenantId: tenant.id };
  }
  const customer = idOf(session.customer);
  const subscription = idOf(session.subscription);
  await tx`
    update tenants set plan = ${plan}, payment_customer_id = coalesce(${customer}, payment_customer_id),
      payment_subscription_id = ${subscription}, subscription_cancel_at = null,
      subscription_event_at = greatest(subscription_event_at, ${eventTime(event)}), updated_at = now()
    where id = ${tenant.id}`;
  await recordAudit(tx, {
    tenantId: tenant.id,
    action: "subscription.activated",
    target: subscription ?? undefined,
    details: { plan, previousPlan: tenant.plan, eventId: event.id },
  });
  return { outcome: "applied", tenantId: tenant.id };
}

/** Subscription's end: the cancellation date, or the period end when cancelling at period end. */
function endOf(subscription: Stripe.Subscription): Date | null {
  if (subscription.cancel_at) return new Date(subscription.cancel_at * 1000);
  if (!subscription.cancel_at_period_end) return null;
  const ends = (subscription.items?.data ?? []).map((i) => i.current_period_end).filter(Boolean);
  return ends.length > 0 ? new Date(Math.max(...ends) * 1000) : null;
}

const ACTIVE = new Set(["active", "trialing", "past_due"]);

/** customer.subscription.updated → plan changes (price) and scheduled cancellations in step. */
async function updateSubscription(
  tx: TransactionSql,
  payments: Payments,
  deps: BillingDeps,
  event: Stripe.Event,
  subscription: Stripe.Subscription,
): Promise<Effect> {
  const [bySubscription] = await tx<{ id: string }[]>`
    select id from tenants where payment_subscription_id = ${subscription.id}`;
  const tenant = await lockTenant(tx, bySubscription?.id ?? subscription.metadata?.tenant_id ?? "");
  // The subscription of another (older) contract of this tenant, or of nobody we know.
  if (!tenant || (tenant.payment_subscription_id && tenant.payment_subscription_id !== subscription.id)) {
    deps.logger.warn(
      { eventId: event.id, subscription: subscription.id },
      "subscription event for no workspace",
    );
    return { outcome: "unknown_tenant" };
  }
  if (tenant.subscription_event_at && tenant.subscription_event_at > eventTime(event)) {
    return { outcome: "stale", tenantId: tenant.id };
  }
  const priced = planOfPrice(payments.prices, subscription.items?.data?.[0]?.price?.id);
  const fromMetadata = subscription.metadata?.plan;
  const current = priced ?? (isPaidPlan(fromMetadata) ? fromMetadata : undefined);
  // Only a running subscription sets the plan; the end itself comes as customer.subscription.deleted.
  const plan =
    ACTIVE.has(subscription.status) && tenant.payment_subscription_id && current ? current : tenant.plan;
  const cancelAt = endOf(subscription);
  await tx`
    update tenants set plan = ${plan}, subscription_cancel_at = ${cancelAt},
      payment_subscription_id = coalesce(payment_subscription_id, ${subscription.id}),
      payment_customer_id = coalesce(payment_customer_id, ${idOf(subscription.customer)}),
      subscription_event_at = ${eventTime(event)}, updated_at = now()
    where id = ${tenant.id}`;
  if (plan !== tenant.plan) {
    await recordAudit(tx, {
      tenantId: tenant.id,
      action: "subscription.plan_changed",
      target: subscription.id,
      details: { plan, previousPlan: tenant.plan, eventId: event.id },
    });
  }
  if ((cancelAt?.getTime() ?? null) !== (tenant.subscription_cancel_at?.getTime() ?? null)) {
    await recordAudit(tx, {
      tenantId: tenant.id,
      action: cancelAt ? "subscription.cancellation_scheduled" : "subscription.cancellation_withdrawn",
      target: subscription.id,
      details: { cancelAt: cancelAt?.toISOString() ?? null, eventId: event.id },
    });
  }
  return { outcome: "applied", tenantId: tenant.id };
}

/** customer.subscription.deleted → free; the customer id stays (portal: invoices). */
async function endSubscription(
  tx: TransactionSql,
  deps: BillingDeps,
  event: Stripe.Event,
  subscription: Stripe.Subscription,
): Promise<Effect> {
  const [row] = await tx<{ id: string }[]>`
    select id from tenants where payment_subscription_id = ${subscription.id}`;
  const tenant = row ? await lockTenant(tx, row.id) : undefined;
  if (!tenant) {
    deps.logger.warn(
      { eventId: event.id, subscription: subscription.id },
      "subscription end for no workspace",
    );
    return { outcome: "unknown_tenant" };
  }
  await tx`
    update tenants set plan = 'free', payment_subscription_id = null, subscription_cancel_at = null,
      subscription_event_at = greatest(subscription_event_at, ${eventTime(event)}), updated_at = now()
    where id = ${tenant.id}`;
  await recordAudit(tx, {
    tenantId: tenant.id,
    action: "subscription.cancelled",
    target: subscription.id,
    details: { previousPlan: tenant.plan, eventId: event.id },
  });
  return { outcome: "applied", tenantId: tenant.id };
}
