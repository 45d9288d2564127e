import Stripe from "stripe";
import { freshIp } from "../tenancy/sign-in-helper.js";

export const SECRET_KEY = "sk_test_fake_51memoryservice";
export const WEBHOOK_SECRET = "whsec_test_fake_secret";

/** Every price the tests configure: plan × period. */
export const PRICES = {
  STRIPE_PRICE_PLUS_MONTHLY: "price_plus_monthly",
  STRIPE_PRICE_PRO_MONTHLY: "price_pro_monthly",
  STRIPE_PRICE_PRO_YEARLY: "price_pro_yearly",
  STRIPE_PRICE_TEAM_MONTHLY: "price_team_monthly",
  STRIPE_PRICE_API_MONTHLY: "price_api_monthly",
} as const;

export function paymentEnv(stripeUrl: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripeUrl,
    TRUST_PROXY: "true",
    ...PRICES,
  };
}

/** The SDK only for its webhook helper (signing test payloads as Stripe does). */
const signer = new Stripe(SECRET_KEY);

let eventCounter = 0;

/** A Stripe event envelope (https://docs.stripe.com/api/events/object). */
export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  created = Math.floor(Date.now() / 1000),
) {
  eventCounter++;
  return {
    id: `evt_test_${process.pid}_${eventCounter}_${Math.random().toString(36).slice(2, 8)}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created,
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  };
}

/** POSTs a payload to the webhook, signed with the SDK's own generateTestHeaderString. */
export async function deliver(
  baseUrl: string,
  event: unknown,
  options: {
    secret?: string;
    timestamp?: number;
    tamper?: (payload: string) => string;
    signature?: string | null;
    /** The header the signature travels in: the spec's name (default) or Stripe's own. */
    headerName?: "provider-signature" | "stripe-signature";
  } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const payload = JSON.stringify(event, null, 2);
  const header =
    options.signature === undefined
      ? signer.webhooks.generateTestHeaderString({
          payload,
          secret: options.secret ?? WEBHOOK_SECRET,
          ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
        })
      : options.signature;
  const res = await fetch(`${baseUrl}/api/checkout/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(header === null ? {} : { [options.headerName ?? "provider-signature"]: header }),
    },
    body: options.tamper ? options.tamper(payload) : payload,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export function post(baseUrl: string, path: string, body: unknown, cookie?: string) {
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      "x-forwarded-for": freshIp(),
      ...(cookie ? { cookie } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The checkout.session object Stripe sends with checkout.session.completed. */
export function completedSession(input: {
  tenantId: string;
  plan: string;
  customer: string;
  subscription: string;
  paymentStatus?: string;
}) {
  return {
    id: `cs_test_done_${Math.random().toString(36).slice(2, 10)}`,
    object: "checkout.session",
    mode: "subscription",
    status: "complete",
    payment_status: input.paymentStatus ?? "paid",
    client_reference_id: input.tenantId,
    customer: input.customer,
    subscription: input.subscription,
    metadata: { tenant_id: input.tenantId, plan: input.plan, billing: "monthly" },
    livemode: false,
  };
}
