import { type ComponentChildren, h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, errorText } from "./api.js";
import { type Language, type MessageKey, setLanguage, t } from "./i18n.js";
import { BillingPage } from "./pages/billing.js";
import { CancellationPage } from "./pages/cancellation.js";
import { ExplorerPage } from "./pages/explorer.js";
import { ExportsPage } from "./pages/exports.js";
import { KeysPage } from "./pages/keys.js";
import { OnboardingPage } from "./pages/onboarding.js";
import { OverviewPage } from "./pages/overview.js";
import { SignInPage } from "./pages/sign-in.js";
import { TokensPage } from "./pages/tokens.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { DASHBOARD, navigate, type Session } from "./session.js";
import { Notice } from "./ui.js";

type PageProps = { session: Session };
const PAGES: readonly (readonly [string, MessageKey, (props: PageProps) => ComponentChildren])[] = [
  ["", "navOverview", OverviewPage],
  ["/explorer", "navExplorer", ExplorerPage],
  ["/tokens", "navTokens", TokensPage],
  ["/webhooks", "navWebhooks", WebhooksPage],
  ["/keys", "navKeys", KeysPage],
  ["/billing", "navBilling", BillingPage],
  ["/exports", "navExports", ExportsPage],
];

const LANGUAGE_KEY = "dashboard.language";

function initialLanguage(): Language {
  const saved = localStorage.getItem(LANGUAGE_KEY);
  if (saved === "de" || saved === "en") return saved;
  return document.documentElement.lang === "de" ? "de" : "en";
}

function LanguageSwitch(props: { language: Language; onChange: (l: Language) => void }): ComponentChildren {
  return h(
    "div",
    { class: "lang", role: "group", "aria-label": t("language") },
    (["de", "en"] as const).map((l) =>
      h(
        "button",
        {
          type: "button",
          key: l,
          lang: l,
          "aria-pressed": props.language === l ? "true" : "false",
          onClick: () => props.onChange(l),
        },
        l === "de" ? "Deutsch" : "English",
      ),
    ),
  );
}

function Layout(props: {
  session: Session | undefined;
  path: string;
  language: Language;
  onLanguage: (l: Language) => void;
  children: ComponentChildren;
}): ComponentChildren {
  const signOut = async () => {
    await api("POST", "/api/auth/signout").catch(() => undefined);
    location.assign(DASHBOARD);
  };
  return h(
    "div",
    { class: "layout" },
    h("a", { class: "skip", href: "#main" }, t("skip")),
    h(
      "header",
      { class: "top" },
      h("a", { class: "brand", href: DASHBOARD }, t("appName")),
      props.session?.tenantSlug ? h("span", { class: "workspace" }, props.session.tenantSlug) : null,
      h("span", { class: "spacer" }),
      h(LanguageSwitch, { language: props.language, onChange: props.onLanguage }),
      props.session ? h("button", { type: "button", class: "link", onClick: signOut }, t("signOut")) : null,
    ),
    props.session?.tenantId
      ? h(
          "nav",
          { "aria-label": "Dashboard" },
          h(
            "ul",
            null,
            PAGES.map(([suffix, label]) => {
              const href = `${DASHBOARD}${suffix}`;
              return h(
                "li",
                { key: suffix },
                h(
                  "a",
                  {
                    href,
                    "aria-current": props.path === href ? "page" : undefined,
                    onClick: (event: MouseEvent) => {
                      if (event.ctrlKey || event.metaKey || event.shiftKey) return;
                      event.preventDefault();
                      navigate(href);
                    },
                  },
                  t(label),
                ),
              );
            }),
          ),
        )
      : null,
    h("main", { id: "main", tabIndex: -1 }, props.children),
  );
}

type SessionState =
  | { kind: "loading" }
  | { kind: "signed-out" }
  | { kind: "failed"; message: string }
  | { kind: "ready"; session: Session };

function App(): ComponentChildren {
  const [language, setLang] = useState<Language>(() => {
    const l = initialLanguage();
    setLanguage(l);
    return l;
  });
  const [path, setPath] = useState(location.pathname.replace(/\/$/, ""));
  const [state, setState] = useState<SessionState>({ kind: "loading" });

  useEffect(() => {
    const onPop = () => setPath(location.pathname.replace(/\/$/, ""));
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);

  useEffect(() => {
    api<Session>("GET", "/api/auth/session")
      .then((session) => setState({ kind: "ready", session }))
      .catch((error: unknown) =>
        setState(
          error instanceof ApiError && error.status === 401
            ? { kind: "signed-out" }
            : { kind: "failed", message: errorText(error) },
        ),
      );
  }, []);

  // Focus the new page's heading after a navigation, so keyboard and screen-reader users follow.
  useEffect(() => {
    const heading = document.querySelector<HTMLElement>("main h1");
    if (heading && document.activeElement !== document.body) heading.focus();
  }, [path]);

  const onLanguage = (l: Language) => {
    localStorage.setItem(LANGUAGE_KEY, l);
    setLanguage(l);
    setLang(l);
  };

  const session = state.kind === "ready" ? state.session : undefined;
  let page: ComponentChildren;
  if (path === `${DASHBOARD}/kuendigung`) page = h(CancellationPage, null);
  else if (state.kind === "loading") page = h("p", { role: "status" }, t("loading"));
  else if (state.kind === "failed") page = h(Notice, { kind: "error" }, state.message);
  else if (state.kind === "signed-out") page = h(SignInPage, null);
  else if (!state.session.tenantId) page = h(OnboardingPage, null);
  else {
    const found = PAGES.find(([suffix]) => `${DASHBOARD}${suffix}` === path) ?? PAGES[0];
    page = found ? h(found[2], { session: state.session }) : h("p", null);
  }
  return h(Layout, { session, path, language, onLanguage, children: page });
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(h(App, null), root);
}
