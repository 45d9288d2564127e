import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { DASHBOARD, type Session } from "../session.js";
import { ErrorNotice, Notice, PageHead, Select } from "../ui.js";

const PAID_PLANS = ["plus", "pro", "team", "api"] as const;

/** Current plan, upgrade through checkout, the customer portal and the public cancellation page. */
export function BillingPage(props: { session: Session }): ComponentChildren {
  const [plan, setPlan] = useState<string>("pro");
  const [billing, setBilling] = useState<string>("monthly");
  const [error, setError] = useState<unknown>();
  const checkout = new URLSearchParams(location.search).get("checkout");
  const go = async (path: string, body?: unknown) => {
    setError(undefined);
    try {
      const { url } = await api<{ url: string }>("POST", path, body);
      location.assign(url);
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "section",
    null,
    h(PageHead, { title: t("billingTitle") }),
    checkout === "success" ? h(Notice, { kind: "info" }, t("checkoutSuccess")) : null,
    checkout === "cancelled" ? h(Notice, { kind: "warn" }, t("checkoutCancelled")) : null,
    error ? h(ErrorNotice, { error }) : null,
    h(
      "div",
      { class: "card" },
      h("h2", null, t("currentPlan")),
      h("p", { class: "plan", "data-testid": "plan" }, props.session.plan ?? "—"),
    ),
    h(
      "form",
      {
        class: "card",
        onSubmit: (event: Event) => {
          event.preventDefault();
          void go("/api/checkout", { plan, billing });
        },
      },
      h("h2", null, t("upgrade")),
      h(Select, {
        label: t("plan"),
        name: "plan",
        value: plan,
        options: PAID_PLANS.map((p) => [p, p] as const),
        onChange: setPlan,
      }),
      h(Select, {
        label: t("billing"),
        name: "billing",
        value: billing,
        options: [
          ["monthly", t("monthly")],
          ["yearly", t("yearly")],
        ],
        onChange: setBilling,
      }),
      h("button", { type: "submit" }, t("toCheckout")),
    ),
    h(
      "div",
      { class: "card" },
      h("h2", null, t("portalTitle")),
      h("p", null, t("portalLead")),
      h("button", { type: "button", onClick: () => void go("/api/subscription/portal") }, t("portal")),
      h("p", null, h("a", { href: `${DASHBOARD}/kuendigung` }, t("cancelLink"))),
    ),
  );
}
