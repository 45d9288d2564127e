import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNotice, Field, PageHead } from "../ui.js";

/** Spec "Tenant creation request": the slug pattern, checked while typing (the server checks again). */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
const PLANS = ["free", "plus", "pro", "team", "api"] as const;

/** POST /api/onboarding: slug, name, plan; a paid plan continues to the checkout URL it returns. */
export function OnboardingPage(): ComponentChildren {
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [plan, setPlan] = useState<(typeof PLANS)[number]>("free");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const slugValid = SLUG_PATTERN.test(slug);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!slugValid) return;
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<{ tenantId: string; redirectUrl: string }>("POST", "/api/onboarding", {
        slug,
        name,
        plan,
      });
      location.assign(created.redirectUrl);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return h(
    "section",
    { class: "card narrow" },
    h(PageHead, { title: t("onboardingTitle") }),
    error ? h(ErrorNotice, { error }) : null,
    h(
      "form",
      { onSubmit: submit },
      h(Field, {
        label: t("slug"),
        name: "slug",
        value: slug,
        onInput: (v) => setSlug(v.trim()),
        required: true,
        autoComplete: "off",
        invalid: slug !== "" && !slugValid,
        help: slug === "" ? t("slugHelp") : slugValid ? t("slugOk") : t("slugBad"),
      }),
      h(Field, { label: t("workspaceName"), name: "name", value: name, onInput: setName, required: true }),
      h(
        "fieldset",
        null,
        h("legend", null, t("plan")),
        h("p", { class: "help" }, t("planHelp")),
        PLANS.map((p) =>
          h(
            "label",
            { class: "check", key: p },
            h("input", {
              type: "radio",
              name: "plan",
              value: p,
              checked: plan === p,
              onChange: () => setPlan(p),
            }),
            ` ${p}`,
          ),
        ),
      ),
      h("button", { type: "submit", disabled: busy || !slugValid || name.trim() === "" }, t("create")),
    ),
  );
}
