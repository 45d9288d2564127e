import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, errorText, planGateOf } from "./api.js";
import { type MessageKey, t } from "./i18n.js";
import type { Session } from "./session.js";

let fieldCounter = 0;

/** A labelled input: the label is tied to the field (screen readers, click target). */
export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  name?: string;
  help?: string;
  invalid?: boolean;
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
}): ComponentChildren {
  const [id] = useState(() => `f${++fieldCounter}`);
  const helpId = props.help ? `${id}-help` : undefined;
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, props.label),
    h("input", {
      id,
      name: props.name ?? id,
      type: props.type ?? "text",
      value: props.value,
      required: props.required ?? false,
      placeholder: props.placeholder,
      autoComplete: props.autoComplete,
      "aria-invalid": props.invalid ? "true" : undefined,
      "aria-describedby": helpId,
      onInput: (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value),
    }),
    props.help ? h("p", { id: helpId, class: props.invalid ? "help bad" : "help" }, props.help) : null,
  );
}

/** A labelled multi-line text field (a memory's content). */
export function TextArea(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  name: string;
  rows?: number;
  required?: boolean;
}): ComponentChildren {
  const [id] = useState(() => `f${++fieldCounter}`);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, props.label),
    h("textarea", {
      id,
      name: props.name,
      rows: props.rows ?? 6,
      value: props.value,
      required: props.required ?? false,
      onInput: (event: Event) => props.onInput((event.currentTarget as HTMLTextAreaElement).value),
    }),
  );
}

/** A labelled select. */
export function Select(props: {
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
  name?: string;
}): ComponentChildren {
  const [id] = useState(() => `f${++fieldCounter}`);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, props.label),
    h(
      "select",
      {
        id,
        name: props.name ?? id,
        value: props.value,
        onChange: (event: Event) => props.onChange((event.currentTarget as HTMLSelectElement).value),
      },
      props.options.map(([value, label]) => h("option", { value, key: value }, label)),
    ),
  );
}

/** A group of checkboxes with a legend. */
export function Checkboxes(props: {
  legend: string;
  options: readonly (readonly [string, string])[];
  checked: readonly string[];
  onChange: (checked: string[]) => void;
  name: string;
}): ComponentChildren {
  return h(
    "fieldset",
    null,
    h("legend", null, props.legend),
    props.options.map(([value, label]) =>
      h(
        "label",
        { class: "check", key: value },
        h("input", {
          type: "checkbox",
          name: props.name,
          value,
          checked: props.checked.includes(value),
          onChange: (event: Event) => {
            const on = (event.currentTarget as HTMLInputElement).checked;
            props.onChange(on ? [...props.checked, value] : props.checked.filter((v) => v !== value));
          },
        }),
        ` ${label}`,
      ),
    ),
  );
}

/** A message for the user: errors interrupt (role alert), everything else is polite (role status). */
export function Notice(props: {
  kind: "error" | "info" | "warn";
  children?: ComponentChildren;
}): ComponentChildren {
  return h(
    "div",
    { class: `notice ${props.kind}`, role: props.kind === "error" ? "alert" : "status" },
    props.children,
  );
}

/** The plan-gated features by the plan-gate body's `feature` (spec "Plan-gate error body"). */
const FEATURE_NAMES: Readonly<Record<string, MessageKey>> = {
  webhooks: "featureWebhooks",
  audit_export: "featureAuditExport",
  api_tokens: "featureApiTokens",
  byok: "featureByok",
  memory_limit: "featureMemoryLimit",
};

/**
 * What a plan gate (402) means, in the user's words: which plans have the feature, the current plan,
 * and the way to change it (the billing page), instead of a spinner or the API's raw message.
 */
export function PlanNotice(props: {
  feature: string;
  currentPlan: string;
  requiredPlans: readonly string[];
}) {
  const key = FEATURE_NAMES[props.feature];
  const feature = key ? t(key) : props.feature;
  const current = planName(props.currentPlan);
  // Plans are nested (each has everything of the cheaper ones); requiredPlans is cheapest first.
  const cheapest = props.requiredPlans[0];
  return h(
    "div",
    { class: "notice warn plan-gate", role: "status", "data-testid": "plan-gate" },
    h(
      "p",
      null,
      cheapest
        ? t("planNeeded", { feature, plan: planName(cheapest), current })
        : t("planMissing", { feature, current }),
    ),
    h("a", { class: "button", href: "/dashboard/billing" }, t("seePlans")),
  );
}

/**
 * The plan notice before anything is tried, when the session says the workspace's plan lacks the
 * feature (GET /api/auth/session `features`); undefined when the plan has it. Which plan has it is
 * on the billing page (the plan table lives in the service, not here).
 */
export function missingFeature(session: Session, feature: string): ComponentChildren | undefined {
  if (!session.tenantId || (session.features ?? []).includes(feature)) return undefined;
  return h(PlanNotice, { feature, currentPlan: session.plan ?? "", requiredPlans: [] });
}

/** A plan's name as customers see it ("free" → "Free"). */
export function planName(plan: string): string {
  return plan === "api" ? "API" : plan.charAt(0).toUpperCase() + plan.slice(1);
}

/**
 * A failed call as the user should read it: the plan notice for a plan gate, a plain sentence for
 * a rate limit, the API's message otherwise.
 */
export function ErrorNotice(props: { error: unknown }): ComponentChildren {
  const gate = planGateOf(props.error);
  if (gate) return h(PlanNotice, gate);
  if (props.error instanceof ApiError && props.error.status === 429) {
    return h(Notice, { kind: "error" }, t("tooManyRequests"));
  }
  return h(Notice, { kind: "error" }, errorText(props.error));
}

/** A secret shown exactly once (token, webhook secret) with a copy button. */
export function SecretOnce(props: { lead: string; secret: string; testId: string }): ComponentChildren {
  // "yes": in the clipboard; "manual": no clipboard here (plain http), the text is selected instead.
  const [copied, setCopied] = useState<"no" | "yes" | "manual">("no");
  const [input, setInput] = useState<HTMLInputElement | null>(null);
  return h(
    "div",
    { class: "secret", role: "status" },
    h("p", null, props.lead),
    h(
      "div",
      { class: "row" },
      h("input", {
        ref: setInput,
        readOnly: true,
        value: props.secret,
        "aria-label": props.lead,
        "data-testid": props.testId,
        onFocus: (event: Event) => (event.currentTarget as HTMLInputElement).select(),
      }),
      h(
        "button",
        {
          type: "button",
          onClick: async () => {
            try {
              await navigator.clipboard.writeText(props.secret);
              setCopied("yes");
            } catch {
              input?.focus();
              input?.select();
              setCopied("manual");
            }
          },
        },
        copied === "yes" ? t("copied") : t("copy"),
      ),
    ),
    copied === "manual" ? h("p", { class: "help" }, t("copyManually")) : null,
  );
}

/** The page's heading and lead text. */
export function PageHead(props: { title: string; lead?: string }): ComponentChildren {
  return h(
    "header",
    { class: "page-head" },
    h("h1", { tabIndex: -1 }, props.title),
    props.lead ? h("p", { class: "lead" }, props.lead) : null,
  );
}

/**
 * A destructive action asked twice: the first press shows the question with "yes" (focused) and
 * "cancel", so neither a stray click nor a stray Enter deletes anything.
 */
export function ConfirmButton(props: {
  label: string;
  /** Names the object for screen readers ("Revoke ci-script"). */
  object: string;
  question: string;
  yes: string;
  onConfirm: () => Promise<void>;
  /** The first button's look: red for deletions (default), plain for changes that undo nothing. */
  tone?: "danger" | "secondary";
}): ComponentChildren {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return h(
      "button",
      { type: "button", class: props.tone ?? "danger", onClick: () => setAsking(true) },
      props.label,
      h("span", { class: "sr-only" }, ` ${props.object}`),
    );
  }
  return h(
    "div",
    { class: "confirm", role: "group", "aria-label": props.question },
    h("span", null, props.question),
    h(
      "button",
      {
        type: "button",
        class: "danger",
        ref: (el: HTMLButtonElement | null) => el?.focus(),
        onClick: async () => {
          await props.onConfirm();
          setAsking(false);
        },
      },
      props.yes,
    ),
    h("button", { type: "button", onClick: () => setAsking(false) }, t("cancel")),
  );
}

/**
 * A list as a table: a loading line until the rows arrive, the empty text when there are none,
 * nothing when reading them failed (the page shows why).
 */
export function DataTable<T>(props: {
  rows: readonly T[] | undefined;
  failed?: boolean;
  empty: string;
  columns: readonly string[];
  row: (item: T) => ComponentChildren;
}): ComponentChildren {
  if (props.rows === undefined) return props.failed ? null : h("p", { role: "status" }, t("loading"));
  if (props.rows.length === 0) return h("p", null, props.empty);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      null,
      h("thead", null, h("tr", null, ...props.columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, props.rows.map(props.row)),
    ),
  );
}

/**
 * A list read from the REST API when the page shows (and again when `deps` change); `reload` reads
 * it again after a change. A failed read goes to the page's error notice (`onError` gets the error
 * itself, so a plan gate can be shown as one) and sets `failed`, which ends the loading line.
 */
export function useApiList<T>(
  path: string,
  onError: (error: unknown) => void,
  deps: readonly unknown[] = [],
): { items: T[] | undefined; failed: boolean; reload: () => Promise<void> } {
  const [items, setItems] = useState<T[] | undefined>();
  const [failed, setFailed] = useState(false);
  const reload = () =>
    api<T[]>("GET", path)
      .then((rows) => {
        setFailed(false);
        setItems(rows);
      })
      .catch((e: unknown) => {
        setFailed(true);
        onError(e);
      });
  useEffect(() => {
    void reload();
  }, [path, ...deps]);
  return { items, failed, reload };
}
