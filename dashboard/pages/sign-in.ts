import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNotice, Field, Notice, PageHead } from "../ui.js";

/** Magic-link sign-in (POST /api/auth/signin/email) and the "check your mail" state. */
export function SignInPage(): ComponentChildren {
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  if (sentTo !== undefined) {
    return h(
      "section",
      { class: "card narrow" },
      h(PageHead, { title: t("checkMailTitle") }),
      h(Notice, { kind: "info" }, t("checkMail", { email: sentTo })),
      h("button", { type: "button", class: "link", onClick: () => setSentTo(undefined) }, t("otherAddress")),
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const next = location.pathname.startsWith("/dashboard") ? location.pathname : "/dashboard";
      await api("POST", "/api/auth/signin/email", { email, callbackPath: next });
      setSentTo(email);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return h(
    "section",
    { class: "card narrow" },
    h(PageHead, { title: t("signInTitle"), lead: t("signInLead") }),
    error ? h(ErrorNotice, { error }) : null,
    h(
      "form",
      { onSubmit: submit },
      h(Field, {
        label: t("email"),
        type: "email",
        name: "email",
        value: email,
        onInput: setEmail,
        required: true,
        autoComplete: "email",
      }),
      h("button", { type: "submit", disabled: busy }, t("sendLink")),
    ),
  );
}
