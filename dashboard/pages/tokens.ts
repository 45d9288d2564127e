import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { formatTime, t } from "../i18n.js";
import type { Session } from "../session.js";
import {
  Checkboxes,
  ConfirmButton,
  DataTable,
  ErrorNotice,
  Field,
  missingFeature,
  PageHead,
  SecretOnce,
  useApiList,
} from "../ui.js";

/** Spec "API token". */
interface ApiToken {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  kind: "api" | "oauth";
}

function RevokeButton(props: {
  token: ApiToken;
  onRevoked: () => void;
  onError: (error: unknown) => void;
}): ComponentChildren {
  return h(ConfirmButton, {
    label: t("revoke"),
    object: props.token.name,
    question: t("revokeConfirm", { name: props.token.name }),
    yes: t("revokeYes"),
    onConfirm: async () => {
      try {
        await api("DELETE", `/api/tokens/${encodeURIComponent(props.token.id)}`);
        props.onRevoked();
      } catch (e) {
        props.onError(e);
      }
    },
  });
}

/** /dashboard/tokens: create (shown once, copy), list with last use, revoke with confirmation. */
export function TokensPage(props: { session: Session }): ComponentChildren {
  const gate = missingFeature(props.session, "api_tokens");
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["read", "write"]);
  const [created, setCreated] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();

  const { items: tokens, reload: load } = useApiList<ApiToken>("/api/tokens", setError);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const answer = await api<{ id: string; token: string }>("POST", "/api/tokens", { name, scopes });
      setCreated(answer.token);
      setName("");
      await load();
    } catch (e) {
      setError(e);
    }
  };

  return h(
    "section",
    null,
    h(PageHead, { title: t("tokensTitle"), lead: t("tokensLead") }),
    error ? h(ErrorNotice, { error }) : null,
    created ? h(SecretOnce, { lead: t("tokenOnce"), secret: created, testId: "new-token" }) : null,
    gate ??
      h(
        "form",
        { class: "card", onSubmit: submit },
        h(Field, {
          label: t("tokenName"),
          name: "token-name",
          value: name,
          onInput: setName,
          required: true,
        }),
        h(Checkboxes, {
          legend: t("scopes"),
          name: "scopes",
          options: [
            ["read", t("scopeRead")],
            ["write", t("scopeWrite")],
            ["admin", t("scopeAdmin")],
          ],
          checked: scopes,
          onChange: setScopes,
        }),
        h(
          "button",
          { type: "submit", disabled: name.trim() === "" || scopes.length === 0 },
          t("createToken"),
        ),
      ),
    DataTable({
      rows: tokens,
      empty: t("noTokens"),
      columns: [t("name"), t("scopes"), t("created"), t("lastUsed"), t("actions")],
      row: (token) =>
        h(
          "tr",
          { key: token.id, "data-token-id": token.id },
          h("th", { scope: "row" }, token.name, token.kind === "oauth" ? " (OAuth)" : ""),
          h("td", { "data-testid": "scopes" }, token.scopes.join(", ")),
          h("td", null, formatTime(token.createdAt)),
          h("td", { "data-testid": "last-used" }, formatTime(token.lastUsedAt)),
          h("td", null, h(RevokeButton, { token, onRevoked: () => void load(), onError: setError })),
        ),
    }),
  );
}
