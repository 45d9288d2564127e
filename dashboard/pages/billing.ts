import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.js";
import { formatDate, language, type MessageKey, t } from "../i18n.js";
import { DASHBOARD, type Session } from "../session.js";
import { Notice, PageHead, planName } from "../ui.js";

type Period = "monthly" | "yearly";
interface Price {
  unitAmount: number;
  currency: string;
}

/** GET /api/billing. */
interface Billing {
  currentPlan: string;
  paymentsConfigured: boolean;
  hasPaymentCustomer: boolean;
  subscription: {
    plan: string;
    billing: Period;
    status: string;
    currentPeriodEnd: string | null;
    cancelAt: string | null;
  } | null;
  plans: {
    plan: string;
    memoryLimit: number | null;
    requestsPerMinutePerToken: number;
    auditRetentionDays: number;
    features: string[];
    prices: Record<Period, Price | null>;
  }[];
}
type Offer = Billing["plans"][number];

/** Feature words of the plan table, in the order the cards list them. */
const FEATURES: readonly (readonly [string, MessageKey])[] = [
  ["byok", "includesByok"],
  ["audit_export", "includesAuditExport"],
  ["webhooks", "includesWebhooks"],
  ["api_tokens", "includesApiTokens"],
];

/** An amount in the currency's smallest unit, formatted for the page's language ("19,00 €"). */
export function formatPrice(price: Price): string {
  const format = new Intl.NumberFormat(language() === "de" ? "de-DE" : "en-GB", {
    style: "currency",
    currency: price.currency.toUpperCase(),
  });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(price.unitAmount / 10 ** digits);
}

function formatCount(n: number): string {
  return n.toLocaleString(language() === "de" ? "de-DE" : "en-GB");
}

/**
 * What went wrong, in words a customer can act on: never the API's own text, which names routes and
 * internal objects ("payment customer (… POST /api/checkout) not found").
 */
function billingError(error: unknown): string {
  if (!(error instanceof ApiError)) return t("billingErrNetwork");
  switch (error.status) {
    case 404:
      return t("billingErrNoCustomer");
    case 409:
      return t("billingErrHasSubscription");
    case 429:
      return t("tooManyRequests");
    case 502:
    case 504:
      return t("billingErrProvider");
    case 503:
      return t("billingErrPayments");
    default:
      return t("billingErrGeneric", { status: error.status });
  }
}

function PlanCard(props: {
  offer: Offer;
  billing: Billing;
  period: Period;
  rank: (plan: string) => number;
  onCheckout: (plan: string) => void;
  onPortal: () => void;
  busy: boolean;
}): ComponentChildren {
  const { offer, billing, period } = props;
  const current = offer.plan === billing.currentPlan;
  const price = offer.prices[period];
  const sub = billing.subscription;
  const higher = props.rank(offer.plan) > props.rank(billing.currentPlan);
  const includes: string[] = [
    offer.memoryLimit === null
      ? t("includesUnlimited")
      : t("includesMemories", { n: formatCount(offer.memoryLimit) }),
    t("includesRequests", { n: offer.requestsPerMinutePerToken }),
    t("includesAudit", { n: offer.auditRetentionDays }),
    ...FEATURES.filter(([word]) => offer.features.includes(word)).map(([, key]) => t(key)),
  ];
  let action: ComponentChildren = null;
  if (current) {
    action = h("p", { class: "badge ok" }, t("yourPlan"));
  } else if (!billing.paymentsConfigured) {
    action = null;
  } else if (offer.plan === "free") {
    // Back to free: the paid subscription ends (public cancellation page, § 312k BGB).
    action =
      sub && !sub.cancelAt
        ? h("a", { href: `${DASHBOARD}/kuendigung` }, t("downgradeToFree"))
        : sub?.cancelAt
          ? h("p", { class: "help" }, t("freeFrom", { date: formatDate(sub.cancelAt) }))
          : null;
  } else if (sub && billing.hasPaymentCustomer) {
    // A running subscription changes plan in the payment provider's portal (prorated there).
    action = h(
      "button",
      { type: "button", disabled: props.busy, onClick: props.onPortal },
      t(higher ? "upgradeInPortal" : "downgradeInPortal", { plan: planName(offer.plan) }),
    );
  } else if (higher && price) {
    action = h(
      "button",
      { type: "button", disabled: props.busy, onClick: () => props.onCheckout(offer.plan) },
      t("choosePlan", { plan: planName(offer.plan) }),
    );
  } else if (higher) {
    action = h("p", { class: "help" }, t(period === "yearly" ? "notSoldYearly" : "notSoldMonthly"));
  }
  return h(
    "article",
    {
      class: current ? "card plan-card current" : "card plan-card",
      "data-plan": offer.plan,
      "aria-current": current ? "true" : undefined,
    },
    h("h3", null, planName(offer.plan)),
    billing.paymentsConfigured
      ? h(
          "p",
          { class: "price", "data-testid": `price-${offer.plan}` },
          offer.plan === "free"
            ? t("priceFree")
            : price
              ? t(period === "yearly" ? "perYear" : "perMonth", { price: formatPrice(price) })
              : "—",
        )
      : null,
    h(
      "ul",
      { class: "includes", "aria-label": t("includesLabel", { plan: planName(offer.plan) }) },
      includes.map((line) => h("li", { key: line }, line)),
    ),
    action,
  );
}

/**
 * /dashboard/billing: the current plan with its period end and a scheduled cancellation, every plan
 * as a card (price from the configured Stripe prices, limits from the plan table), the way to each
 * (checkout without a subscription, the portal with one, the cancellation page to go back to free),
 * and errors in words.
 */
export function BillingPage(_props: { session: Session }): ComponentChildren {
  const [billing, setBilling] = useState<Billing | undefined>();
  const [period, setPeriod] = useState<Period>("monthly");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const checkout = new URLSearchParams(location.search).get("checkout");
  useEffect(() => {
    api<Billing>("GET", "/api/billing")
      .then((b) => {
        setBilling(b);
        if (b.subscription) setPeriod(b.subscription.billing);
      })
      .catch((e: unknown) => setError(billingError(e)));
  }, []);
  const go = async (path: string, body?: unknown) => {
    setError(undefined);
    setBusy(true);
    try {
      const { url } = await api<{ url: string }>("POST", path, body);
      location.assign(url);
    } catch (e) {
      setError(billingError(e));
      setBusy(false);
    }
  };
  const order = billing?.plans.map((p) => p.plan) ?? [];
  const rank = (plan: string) => order.indexOf(plan);
  const sub = billing?.subscription;
  const yearlySold = billing?.plans.some((p) => p.prices.yearly !== null) ?? false;
  return h(
    "section",
    null,
    h(PageHead, { title: t("billingTitle") }),
    checkout === "success" ? h(Notice, { kind: "info" }, t("checkoutSuccess")) : null,
    checkout === "cancelled" ? h(Notice, { kind: "warn" }, t("checkoutCancelled")) : null,
    error ? h(Notice, { kind: "error" }, error) : null,
    billing === undefined
      ? error
        ? null
        : h("p", { role: "status" }, t("loading"))
      : [
          h(
            "div",
            { class: "card", key: "current" },
            h("h2", null, t("currentPlan")),
            h("p", { class: "plan", "data-testid": "plan" }, planName(billing.currentPlan)),
            sub
              ? h(
                  "p",
                  { "data-testid": "period" },
                  t(sub.billing === "yearly" ? "billedYearly" : "billedMonthly"),
                  sub.currentPeriodEnd
                    ? ` ${t(sub.cancelAt ? "periodEnds" : "renewsOn", { date: formatDate(sub.currentPeriodEnd) })}`
                    : "",
                )
              : null,
            sub?.cancelAt
              ? h(
                  Notice,
                  { kind: "warn" },
                  t("cancellationScheduled", {
                    date: formatDate(sub.cancelAt),
                    plan: planName(sub.plan),
                  }),
                )
              : null,
            billing.paymentsConfigured ? null : h("p", { class: "help" }, t("paymentsOff")),
          ),
          h(
            "section",
            { key: "plans", "aria-labelledby": "plans-heading" },
            h("h2", { id: "plans-heading" }, t("plansTitle")),
            billing.paymentsConfigured && yearlySold && !sub
              ? h(
                  "fieldset",
                  { class: "period" },
                  h("legend", null, t("billing")),
                  (["monthly", "yearly"] as const).map((p) =>
                    h(
                      "label",
                      { class: "check", key: p },
                      h("input", {
                        type: "radio",
                        name: "period",
                        value: p,
                        checked: period === p,
                        onChange: () => setPeriod(p),
                      }),
                      ` ${t(p)}`,
                    ),
                  ),
                )
              : null,
            h(
              "div",
              { class: "plan-cards" },
              billing.plans.map((offer) =>
                h(PlanCard, {
                  key: offer.plan,
                  offer,
                  billing,
                  period,
                  rank,
                  busy,
                  onCheckout: (plan) => void go("/api/checkout", { plan, billing: period }),
                  onPortal: () => void go("/api/subscription/portal"),
                }),
              ),
            ),
          ),
          billing.hasPaymentCustomer
            ? h(
                "div",
                { class: "card", key: "portal" },
                h("h2", null, t("portalTitle")),
                h("p", null, t("portalLead")),
                h(
                  "button",
                  { type: "button", disabled: busy, onClick: () => void go("/api/subscription/portal") },
                  t("portal"),
                ),
              )
            : null,
          sub && !sub.cancelAt
            ? h("p", { key: "cancel" }, h("a", { href: `${DASHBOARD}/kuendigung` }, t("cancelLink")))
            : null,
        ],
  );
}
