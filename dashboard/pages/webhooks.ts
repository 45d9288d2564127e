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
  previousSecretExpiresAt: string | null;
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

/** Change a subscription's address, description and event kinds (PATCH /api/webhooks/{id}). */
function EditForm(props: {
  sub: Subscription;
  onSaved: () => void;
  onCancel: () => void;
}): ComponentChildren {
  const [url, setUrl] = useState(props.sub.url);
  const [description, setDescription] = useState(props.sub.description);
  const [events, setEvents] = useState<string[]>(props.sub.events);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api("PATCH", `/api/webhooks/${encodeURIComponent(props.sub.id)}`, { url, description, events });
      props.onSaved();
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "form",
    { class: "edit-webhook", onSubmit: submit, "aria-label": t("editWebhook") },
    error ? h(ErrorNotice, { error }) : null,
    h(Field, { label: t("url"), name: "edit-url", type: "url", value: url, onInput: setUrl, required: true }),
    h(Field, {
      label: t("description"),
      name: "edit-description",
      value: description,
      onInput: setDescription,
    }),
    h(Checkboxes, {
      legend: t("events"),
      name: "edit-events",
      options: EVENT_KINDS.map((k) => [k, k] as const),
      checked: events,
      onChange: setEvents,
    }),
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", disabled: events.length === 0 || url.trim() === "" }, t("saveChanges")),
      h("button", { type: "button", class: "secondary", onClick: props.onCancel }, t("cancel")),
    ),
  );
}

function SubscriptionCard(props: { sub: Subscription; onChanged: () => void }): ComponentChildren {
  const { sub } = props;
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState(false);
  // A rotated secret, shown once in this card; the old one keeps signing until `until`.
  const [rotated, setRotated] = useState<{ secret: string; until: string | null } | undefined>();
  const rotate = async () => {
    setError(undefined);
    try {
      const r = await api<{ secret: string; previousSecretExpiresAt: string | null }>(
        "POST",
        `/api/webhooks/${encodeURIComponent(sub.id)}/rotate-secret`,
      );
      setRotated({ secret: r.secret, until: r.previousSecretExpiresAt });
      props.onChanged();
    } catch (e) {
      setError(e);
    }
  };
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
    rotated
      ? h(SecretOnce, {
          lead: rotated.until ? t("secretRotated", { time: formatTime(rotated.until) }) : t("secretOnce"),
          secret: rotated.secret,
          testId: "rotated-secret",
        })
      : null,
    editing
      ? h(EditForm, {
          sub,
          onSaved: () => {
            setEditing(false);
            setMessage(t("webhookSaved"));
            props.onChanged();
          },
          onCancel: () => setEditing(false),
        })
      : null,
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", onClick: () => void act("test", t("testSent")) }, t("test")),
      editing
        ? null
        : h(
            "button",
            { type: "button", class: "secondary", onClick: () => setEditing(true) },
            t("edit"),
            h("span", { class: "sr-only" }, ` ${sub.url}`),
          ),
      h(ConfirmButton, {
        label: t("rotateSecret"),
        object: sub.url,
        question: t("rotateConfirm"),
        yes: t("rotateYes"),
        onConfirm: rotate,
        tone: "secondary",
      }),
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
