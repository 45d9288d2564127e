import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the Stripe API (https://docs.stripe.com/api), driven by the real `stripe`
 * SDK through STRIPE_API_BASE. It reproduces what billing calls: form-encoded POST bodies with
 * bracketed keys, Bearer secret-key authentication, the objects' JSON shapes (checkout.session,
 * billing_portal.session, subscription with items.data[].current_period_end, price with
 * currency_options, customer with its currency) and Stripe's error
 * envelope. Every request is recorded with its flat form fields, so tests assert the exact calls.
 */
export interface StripeRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Form fields as sent, e.g. {"line_items[0][price]": "price_pro_m", mode: "subscription"}. */
  readonly form: Record<string, string>;
}

/** A price as the fake answers GET /v1/prices/:id (https://docs.stripe.com/api/prices/object). */
export interface FakePrice {
  unitAmount: number;
  currency: string;
  interval: "month" | "year";
  /** Other currencies the price is sold in (multi-currency prices), amount by ISO code. */
  currencyOptions?: Record<string, number>;
}

/**
 * The prices of the test configuration (payment-fixtures.ts PRICES): euros, the pro plan also in
 * US dollars, the yearly price two months cheaper.
 */
export const DEFAULT_FAKE_PRICES: Readonly<Record<string, FakePrice>> = {
  price_plus_monthly: { unitAmount: 500, currency: "eur", interval: "month" },
  price_pro_monthly: { unitAmount: 1900, currency: "eur", interval: "month", currencyOptions: { usd: 2100 } },
  price_pro_yearly: { unitAmount: 19000, currency: "eur", interval: "year", currencyOptions: { usd: 21000 } },
  price_team_monthly: { unitAmount: 4900, currency: "eur", interval: "month" },
  price_api_monthly: { unitAmount: 9900, currency: "eur", interval: "month" },
};

export interface FakeSubscription {
  id: string;
  customer: string;
  /** ISO 4217 (default eur). */
  currency?: string;
  status: string;
  priceId: string;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  cancelAt: number | null;
  metadata: Record<string, string>;
}

export interface FakeStripe {
  /** e.g. http://127.0.0.1:PORT, for STRIPE_API_BASE */
  readonly url: string;
  readonly requests: StripeRequest[];
  readonly subscriptions: Map<string, FakeSubscription>;
  /** Prices by id (starts with DEFAULT_FAKE_PRICES); unknown ids are Stripe's 404. */
  readonly prices: Map<string, FakePrice>;
  /** Customers' currencies by customer id; a customer not listed exists with currency null. */
  readonly customerCurrencies: Map<string, string>;
  /** Answer the next calls with a Stripe 500 (api_error) while true. */
  failing: boolean;
  subscriptionObject(subscription: FakeSubscription): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startFakeStripe(secretKey: string): Promise<FakeStripe> {
  const requests: StripeRequest[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  const prices = new Map<string, FakePrice>(Object.entries(DEFAULT_FAKE_PRICES));
  const customerCurrencies = new Map<string, string>();
  let counter = 0;
  const now = () => Math.floor(Date.now() / 1000);

  const subscriptionObject = (s: FakeSubscription) => ({
    id: s.id,
    object: "subscription",
    customer: s.customer,
    status: s.status,
    currency: s.currency ?? "eur",
    cancel_at: s.cancelAt,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: s.cancelAt || s.cancelAtPeriodEnd ? now() : null,
    created: now() - 86_400,
    livemode: false,
    metadata: s.metadata,
    items: {
      object: "list",
      data: [
        {
          id: `si_${s.id}`,
          object: "subscription_item",
          current_period_start: s.currentPeriodEnd - 30 * 86_400,
          current_period_end: s.currentPeriodEnd,
          price: { id: s.priceId, object: "price", recurring: { interval: "month" } },
          quantity: 1,
        },
      ],
      has_more: false,
      url: `/v1/subscription_items?subscription=${s.id}`,
    },
  });

  const fake: FakeStripe = {
    url: "",
    requests,
    subscriptions,
    prices,
    customerCurrencies,
    failing: false,
    subscriptionObject,
    close: async () => {},
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    const url = new URL(req.url ?? "/", "http://localhost");
    requests.push({ method: req.method ?? "", path: url.pathname, headers: req.headers, form });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": `req_${++counter}` });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, type: string, message: string, code?: string) =>
      send(status, { error: { type, message, ...(code ? { code } : {}) } });

    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return error(401, "invalid_request_error", "Invalid API Key provided");
    }
    if (fake.failing) return error(500, "api_error", "An unknown error occurred");
    const metadataOf = (prefix: string) =>
      Object.fromEntries(
        Object.entries(form)
          .filter(([k]) => k.startsWith(`${prefix}[`))
          .map(([k, v]) => [k.slice(prefix.length + 1, -1), v]),
      );

    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const id = `cs_test_${++counter}`;
      return send(200, {
        id,
        object: "checkout.session",
        mode: form.mode,
        status: "open",
        payment_status: "unpaid",
        client_reference_id: form.client_reference_id ?? null,
        customer: form.customer ?? null,
        customer_email: form.customer_email ?? null,
        metadata: metadataOf("metadata"),
        subscription: null,
        success_url: form.success_url ?? null,
        cancel_url: form.cancel_url ?? null,
        livemode: false,
        created: now(),
        expires_at: now() + 86_400,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      const id = `bps_${++counter}`;
      return send(200, {
        id,
        object: "billing_portal.session",
        customer: form.customer,
        return_url: form.return_url ?? null,
        livemode: false,
        created: now(),
        url: `https://billing.stripe.com/p/session/test_${id}`,
      });
    }
    const priceMatch = /^\/v1\/prices\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (req.method === "GET" && priceMatch?.[1]) {
      const price = prices.get(priceMatch[1]);
      if (!price) {
        return error(404, "invalid_request_error", `No such price: '${priceMatch[1]}'`, "resource_missing");
      }
      // The SDK sends expand[0]=currency_options (Stripe also takes expand[]=…).
      const expanded = [...url.searchParams].some(
        ([key, value]) => key.startsWith("expand[") && value === "currency_options",
      );
      return send(200, {
        id: priceMatch[1],
        object: "price",
        active: true,
        currency: price.currency,
        unit_amount: price.unitAmount,
        type: "recurring",
        recurring: { interval: price.interval, interval_count: 1 },
        livemode: false,
        ...(expanded
          ? {
              currency_options: Object.fromEntries(
                [
                  [price.currency, price.unitAmount] as const,
                  ...Object.entries(price.currencyOptions ?? {}),
                ].map(([currency, amount]) => [
                  currency,
                  { unit_amount: amount, tax_behavior: "unspecified" },
                ]),
              ),
            }
          : {}),
      });
    }
    const customerMatch = /^\/v1\/customers\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (req.method === "GET" && customerMatch?.[1]) {
      return send(200, {
        id: customerMatch[1],
        object: "customer",
        currency: customerCurrencies.get(customerMatch[1]) ?? null,
        livemode: false,
        created: now(),
      });
    }
    const match = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (match?.[1]) {
      const subscription = subscriptions.get(match[1]);
      if (!subscription) {
        return error(404, "invalid_request_error", `No such subscription: '${match[1]}'`, "resource_missing");
      }
      if (req.method === "DELETE") subscription.status = "canceled";
      if (req.method === "POST") {
        if (form.cancel_at_period_end !== undefined) {
          subscription.cancelAtPeriodEnd = form.cancel_at_period_end === "true";
          subscription.cancelAt = subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null;
        }
        if (form.cancel_at !== undefined) {
          subscription.cancelAt = form.cancel_at === "" ? null : Number(form.cancel_at);
          subscription.cancelAtPeriodEnd = false;
        }
      }
      return send(200, subscriptionObject(subscription));
    }
    return error(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname})`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
  return fake;
}
