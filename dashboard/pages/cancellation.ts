import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { formatTime, t } from "../i18n.js";
import { ErrorNotice, Field, Notice, PageHead } from "../ui.js";

/** The public cancellation button (§312k BGB, POST /api/kuendigung in two steps), no sign-in needed. */
export function CancellationPage(): ComponentChildren {
  const [email, setEmail] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState<{ message: string; confirmationToken: string } | undefined>();
  const [done, setDone] = useState<{ message: string; receivedAt: string } | undefined>();
  const [error, setError] = useState<unknown>();
  const call = async <T>(body: unknown, then: (answer: T) => void) => {
    setError(undefined);
    try {
      then(await api<T>("POST", "/api/kuendigung", body));
    } catch (e) {
      setError(e);
    }
  };
  let body: ComponentChildren;
  if (done) {
    body = h(
      Notice,
      { kind: "info" },
      done.message,
      " ",
      t("cancelReceived", { at: formatTime(done.receivedAt) }),
    );
  } else if (pending) {
    body = h(
      "div",
      null,
      h("p", null, pending.message),
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onClick: () => void call({ confirmationToken: pending.confirmationToken }, setDone),
        },
        t("cancelNow"),
      ),
    );
  } else {
    body = h(
      "form",
      {
        onSubmit: (event: Event) => {
          event.preventDefault();
          void call({ email, workspace, ...(reason ? { reason } : {}) }, setPending);
        },
      },
      h(Field, { label: t("email"), type: "email", value: email, onInput: setEmail, required: true }),
      h(Field, { label: t("workspace"), value: workspace, onInput: setWorkspace, required: true }),
      h(Field, { label: t("reason"), value: reason, onInput: setReason }),
      h("button", { type: "submit" }, t("cancelStep1")),
    );
  }
  return h(
    "section",
    { class: "card narrow" },
    h(PageHead, { title: t("cancelTitle"), lead: t("cancelLead") }),
    error ? h(ErrorNotice, { error }) : null,
    body,
  );
}
