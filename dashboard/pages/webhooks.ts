import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api, planGateOf } from "../api.js";
import { formatTime, t } from "../i18n.js";
import {
  Checkboxes,
  ConfirmButton,
  DataTable,
  ErrorNotice,
  Field,
  Notice,
  PageHead,
  SecretOnce,
  useApiList,
} from "../ui.js";

/** Spec "Events": the kinds a subscription can choose. */
const EVENT_KINDS = ["memory.created", "memory.updated", "webhook.test"] as const;

interface Subscription {
  id: string;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  consecutiveFailures: number;
  createdAt: string;
  deactivatedAt: string | null;
}

interface Delivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  occurredAt: string;
}

/** A delivery's state in the user's language (REST: pending, delivered, dead). */
function deliveryStatus(status: string): string {
  if (status === "pending") return t("deliveryPending");
  if (status === "delivered") return t("deliveryDelivered");
  if (status === "dead") return t("deliveryDead");
  return status;
}

function DeliveryLog(props: { subscriptionId: string; version: number }): ComponentChildren {
  const [error, setError] = useState<unknown>();
  const { items: deliveries, reload: load } = useApiList<Delivery>(
    `/api/webhooks/${encodeURIComponent(props.subscriptionId)}/deliveries?limit=20`,
    setError,
    [props.version],
  );
  return h(
    "div",
    { class: "deliveries" },
    h(
      "div",
      { class: "row" },
      h("h3", null, t("deliveries")),
      h("button", { type: "button", onClick: () => void load() }, t("refresh")),
    ),
    error ? h(ErrorNotice, { error }) : null,
    DataTable({
      rows: deliveries,
      empty: t("noDeliveries"),
      columns: [t("events"), t("status"), t("attempts"), t("response"), t("created")],
      row: (d) =>
        h(
          "tr",
          { key: d.id, "data-delivery-status": d.status },
          h("td", null, d.event),
          h("td", null, deliveryStatus(d.status)),
          h("td", null, String(d.attempts)),
          h("td", null, d.lastResponseCode === null ? (d.lastError ?? "—") : String(d.lastResponseCode)),
          h("td", null, formatTime(d.occurredAt)),
        ),
    }),
  );
}

function SubscriptionCard(props: { sub: Subscription; onChanged: () => void }): ComponentChildren {
  const { sub } = props;
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [version, setVersion] = useState(0);
  const act = async (path: string, done: string | undefined) => {
    setError(undefined);
    try {
      await api("POST", `/api/webhooks/${encodeURIComponent(sub.id)}/${path}`);
      setMessage(done);
      setVersion((v) => v + 1);
      props.onChanged();
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "article",
    { class: "card", "data-webhook-id": sub.id },
    h("h2", { class: "url" }, sub.url),
    h(
      "p",
      null,
      h("span", { class: sub.active ? "badge ok" : "badge bad" }, sub.active ? t("active") : t("inactive")),
      ` ${sub.events.join(", ")}`,
      sub.description ? ` — ${sub.description}` : "",
    ),
    error ? h(ErrorNotice, { error }) : null,
    message ? h(Notice, { kind: "info" }, message) : null,
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", onClick: () => void act("test", t("testSent")) }, t("test")),
      sub.active
        ? null
        : h("button", { type: "button", onClick: () => void act("reactivate", undefined) }, t("reactivate")),
      h(ConfirmButton, {
        label: t("delete"),
        object: sub.url,
        question: t("deleteWebhookConfirm", { url: sub.url }),
        yes: t("deleteYes"),
        onConfirm: async () => {
          try {
            await api("DELETE", `/api/webhooks/${encodeURIComponent(sub.id)}`);
            props.onChanged();
          } catch (e) {
            setError(e);
          }
        },
      }),
    ),
    h(DeliveryLog, { subscriptionId: sub.id, version }),
  );
}

/** Webhook subscriptions: create (secret shown once), Test, delivery log, reactivate. */
export function WebhooksPage(): ComponentChildren {
  const [url, setUrl] = useState("https://");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(["memory.created"]);
  const [secret, setSecret] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const { items: subs, reload: load } = useApiList<Subscription>("/api/webhooks", setError);
  // On a plan without webhooks the list answers 402: the page shows the plan notice, no form.
  const gated = planGateOf(error) !== undefined;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const created = await api<{ id: string; secret: string }>("POST", "/api/webhooks", {
        url,
        events,
        ...(description ? { description } : {}),
      });
      setSecret(created.secret);
      // The form starts over for the next webhook (the secret stays shown above it).
      setUrl("https://");
      setDescription("");
      setEvents(["memory.created"]);
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "section",
    null,
    h(PageHead, { title: t("webhooksTitle"), lead: t("webhooksLead") }),
    error ? h(ErrorNotice, { error }) : null,
    secret ? h(SecretOnce, { lead: t("secretOnce"), secret, testId: "webhook-secret" }) : null,
    gated
      ? null
      : h(
          "form",
          { class: "card", onSubmit: submit },
          h(Field, {
            label: t("url"),
            name: "url",
            type: "url",
            value: url,
            onInput: setUrl,
            required: true,
          }),
          h(Field, {
            label: t("description"),
            name: "description",
            value: description,
            onInput: setDescription,
          }),
          h(Checkboxes, {
            legend: t("events"),
            name: "events",
            options: EVENT_KINDS.map((k) => [k, k] as const),
            checked: events,
            onChange: setEvents,
          }),
          h("button", { type: "submit", disabled: events.length === 0 }, t("createWebhook")),
        ),
    subs === undefined
      ? gated
        ? null
        : h("p", { role: "status" }, t("loading"))
      : subs.length === 0
        ? h("p", null, t("noWebhooks"))
        : subs.map((sub) => h(SubscriptionCard, { key: sub.id, sub, onChanged: () => void load() })),
  );
}
