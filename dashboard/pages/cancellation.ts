import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { ApiError, api } from "../api.js";
import { formatDate, language, type MessageKey, t } from "../i18n.js";
import { Field, Notice, PageHead } from "../ui.js";

type Kind = "ordinary" | "extraordinary";

/** What the customer entered in step 1, shown again for the confirmation and on the receipt. */
interface Contract {
  email: string;
  workspace: string;
  kind: Kind;
  /** Unset: the earliest possible date ("nächstmöglicher Zeitpunkt"). */
  wishedDate: string | undefined;
  reason: string;
}

const SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** Today as YYYY-MM-DD in the browser's time zone (the earliest wished date the form offers). */
function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The time of receipt, once, in the page's language with its time zone. */
function formatReceipt(iso: string): string {
  return new Date(iso).toLocaleString(language() === "de" ? "de-DE" : "en-GB", {
    dateStyle: "long",
    timeStyle: "long",
  });
}

/**
 * A refusal in the page's words: the API answers 400 naming the field ("wishedDate: must be today
 * or later"); the page says what to change instead of showing that text.
 */
function cancellationError(error: unknown): string {
  if (!(error instanceof ApiError)) return t("billingErrNetwork");
  if (error.status === 429) return t("tooManyRequests");
  if (error.status === 503) return t("cancelErrUnavailable");
  if (error.status === 400) {
    const field = /^(\w+):/.exec(error.message)?.[1];
    const byField: Record<string, MessageKey> = {
      email: "cancelErrEmail",
      workspace: "cancelErrWorkspace",
      wishedDate: "cancelErrDate",
      reason: "cancelErrReason",
      confirmationToken: "cancelErrExpired",
    };
    const key = field ? byField[field] : undefined;
    if (key) return t(key);
  }
  return t("billingErrGeneric", { status: error.status });
}

function Summary(props: { contract: Contract }): ComponentChildren {
  const { contract } = props;
  const rows: (readonly [string, string])[] = [
    [t("cancelKind"), t(contract.kind === "extraordinary" ? "cancelExtraordinary" : "cancelOrdinary")],
    [
      t("cancelWhen"),
      contract.wishedDate
        ? t("cancelOnDate", { date: formatDate(contract.wishedDate) })
        : t("cancelEarliest"),
    ],
    [t("email"), contract.email],
    [t("workspace"), contract.workspace],
    ...(contract.reason ? [[t("cancelReasonLabel"), contract.reason] as const] : []),
  ];
  return h(
    "dl",
    { class: "summary" },
    rows.map(([term, value]) => [h("dt", { key: `${term}-t` }, term), h("dd", { key: `${term}-d` }, value)]),
  );
}

/**
 * The public cancellation button (§ 312k BGB), no sign-in needed: the kind of cancellation, the
 * wished end (the earliest possible date by default), the fields that identify the contract, then a
 * confirmation step ("Jetzt kündigen") and a confirmation page with the time of receipt to save or
 * print. The page speaks only its own language; the API's bilingual messages are not shown.
 * POST /api/kuendigung in two steps.
 */
export function CancellationPage(): ComponentChildren {
  const [email, setEmail] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [kind, setKind] = useState<Kind>("ordinary");
  const [when, setWhen] = useState<"earliest" | "date">("earliest");
  const [date, setDate] = useState("");
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState<{ contract: Contract; confirmationToken: string } | undefined>();
  const [done, setDone] = useState<{ contract: Contract; receivedAt: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const contract: Contract = {
      email: email.trim(),
      workspace: workspace.trim(),
      kind,
      wishedDate: when === "date" && date ? date : undefined,
      reason: reason.trim(),
    };
    setBusy(true);
    try {
      const answer = await api<{ confirmationToken: string }>("POST", "/api/kuendigung", {
        email: contract.email,
        workspace: contract.workspace,
        kind: contract.kind,
        ...(contract.wishedDate ? { wishedDate: contract.wishedDate } : {}),
        ...(contract.reason ? { reason: contract.reason } : {}),
      });
      setPending({ contract, confirmationToken: answer.confirmationToken });
    } catch (e) {
      setError(cancellationError(e));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!pending) return;
    setError(undefined);
    setBusy(true);
    try {
      const answer = await api<{ receivedAt: string }>("POST", "/api/kuendigung", {
        confirmationToken: pending.confirmationToken,
      });
      setDone({ contract: pending.contract, receivedAt: answer.receivedAt });
      setPending(undefined);
    } catch (e) {
      const expired = e instanceof ApiError && e.status === 400;
      setError(cancellationError(e));
      // An expired confirmation goes back to the form, filled in, to be sent again.
      if (expired) setPending(undefined);
    } finally {
      setBusy(false);
    }
  };

  let body: ComponentChildren;
  if (done) {
    body = h(
      "div",
      { class: "receipt" },
      h(
        "div",
        { class: "notice info", role: "status" },
        h("p", { "data-testid": "received" }, t("cancelReceivedAt", { at: formatReceipt(done.receivedAt) })),
        h("p", null, t("cancelMailed", { email: done.contract.email })),
      ),
      h(Summary, { contract: done.contract }),
      h("p", { class: "help" }, t("cancelEffective")),
      h("button", { type: "button", onClick: () => print() }, t("cancelPrint")),
    );
  } else if (pending) {
    body = h(
      "div",
      null,
      h("h2", null, t("cancelCheckTitle")),
      h("p", null, t("cancelCheckLead")),
      h(Summary, { contract: pending.contract }),
      h(
        "div",
        { class: "row" },
        h(
          "button",
          { type: "button", class: "danger", disabled: busy, onClick: () => void confirm() },
          t("cancelNow"),
        ),
        h(
          "button",
          { type: "button", disabled: busy, onClick: () => setPending(undefined) },
          t("cancelEdit"),
        ),
      ),
    );
  } else {
    const slugBad = workspace !== "" && !SLUG.test(workspace.trim());
    body = h(
      "form",
      { onSubmit: submit, noValidate: false },
      h(
        "fieldset",
        null,
        h("legend", null, t("cancelKind")),
        (["ordinary", "extraordinary"] as const).map((k) =>
          h(
            "label",
            { class: "check", key: k },
            h("input", {
              type: "radio",
              name: "kind",
              value: k,
              checked: kind === k,
              onChange: () => setKind(k),
            }),
            ` ${t(k === "ordinary" ? "cancelOrdinaryLong" : "cancelExtraordinaryLong")}`,
          ),
        ),
      ),
      h(
        "fieldset",
        null,
        h("legend", null, t("cancelWhen")),
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "radio",
            name: "when",
            value: "earliest",
            checked: when === "earliest",
            onChange: () => setWhen("earliest"),
          }),
          ` ${t("cancelEarliest")}`,
        ),
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "radio",
            name: "when",
            value: "date",
            checked: when === "date",
            onChange: () => setWhen("date"),
          }),
          ` ${t("cancelAtDate")}`,
        ),
        when === "date"
          ? h(
              "div",
              { class: "field" },
              h("label", { for: "wished-date" }, t("cancelDate")),
              h("input", {
                id: "wished-date",
                name: "wishedDate",
                type: "date",
                min: today(),
                required: true,
                value: date,
                onInput: (e: Event) => setDate((e.currentTarget as HTMLInputElement).value),
              }),
              h("p", { class: "help" }, t("cancelDateHelp")),
            )
          : null,
      ),
      h(Field, {
        label: t("email"),
        name: "email",
        type: "email",
        value: email,
        onInput: setEmail,
        required: true,
        autoComplete: "email",
        help: t("cancelEmailHelp"),
      }),
      h(Field, {
        label: t("workspace"),
        name: "workspace",
        value: workspace,
        onInput: setWorkspace,
        required: true,
        invalid: slugBad,
        help: slugBad ? t("cancelErrWorkspace") : t("cancelWorkspaceHelp"),
      }),
      h(Field, {
        label: kind === "extraordinary" ? t("cancelReasonRequired") : t("reason"),
        name: "reason",
        value: reason,
        onInput: setReason,
        required: kind === "extraordinary",
      }),
      h("button", { type: "submit", disabled: busy || slugBad }, t("cancelStep1")),
    );
  }
  return h(
    "section",
    { class: "card narrow" },
    done
      ? h(PageHead, { title: t("cancelDoneTitle") })
      : h(PageHead, { title: t("cancelTitle"), lead: t("cancelLead") }),
    error ? h(Notice, { kind: "error" }, error) : null,
    body,
  );
}
