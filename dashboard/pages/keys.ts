import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { api, errorText } from "../api.js";
import { formatTime, t } from "../i18n.js";
import type { Session } from "../session.js";
import {
  ConfirmButton,
  DataTable,
  ErrorNotice,
  Field,
  missingFeature,
  PageHead,
  Select,
  useApiList,
} from "../ui.js";

/** The providers core knows (docs/providers.md). */
const PROVIDERS = ["openai", "openai-compatible", "cohere", "voyage", "jina", "mistral"] as const;

interface ProviderKey {
  id: string;
  provider: string;
  label: string;
  maskedKey: string;
  baseUrl: string | null;
  model: string;
  lastTestedAt: string | null;
  lastTestOk: boolean | null;
  usedFor: string[];
}

interface KeyTest {
  ok: boolean;
  latencyMs: number;
  dimension: number;
  model: string;
  error?: string;
}

function KeyRow(props: { keyRecord: ProviderKey; onChanged: () => void }): ComponentChildren {
  const k = props.keyRecord;
  const [result, setResult] = useState<string | undefined>();
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const test = async () => {
    setBusy(true);
    try {
      const r = await api<KeyTest>("POST", `/api/keys/${encodeURIComponent(k.id)}/test`);
      setFailed(!r.ok);
      setResult(
        r.ok
          ? t("testOk", { ms: r.latencyMs, model: r.model, dim: r.dimension })
          : t("testFailed", { ms: r.latencyMs, error: r.error ?? "" }),
      );
    } catch (e) {
      setFailed(true);
      setResult(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return h(
    "tr",
    { "data-key-id": k.id },
    h("th", { scope: "row" }, k.label || k.provider),
    h("td", null, k.provider),
    h("td", null, h("code", null, k.maskedKey)),
    h("td", null, k.model || "—"),
    h(
      "td",
      null,
      h("button", { type: "button", disabled: busy, onClick: () => void test() }, t("testKey")),
      " ",
      h(ConfirmButton, {
        label: t("delete"),
        object: k.label || k.provider,
        question: t("deleteKeyConfirm", { name: k.label || k.provider }),
        yes: t("deleteYes"),
        onConfirm: async () => {
          try {
            await api("DELETE", `/api/keys/${encodeURIComponent(k.id)}`);
            props.onChanged();
          } catch (e) {
            setFailed(true);
            setResult(errorText(e));
          }
        },
      }),
      result
        ? h(
            "p",
            { class: failed ? "help bad" : "help good", role: "status", "data-testid": "key-test" },
            result,
          )
        : k.lastTestedAt
          ? h("p", { class: "help" }, `${t("testKey")}: ${formatTime(k.lastTestedAt)}`)
          : null,
    ),
  );
}

/** Provider keys (BYOK): add, masked list, test with latency. */
export function KeysPage(props: { session: Session }): ComponentChildren {
  const gate = missingFeature(props.session, "byok");
  const [provider, setProvider] = useState<string>("openai");
  const [label, setLabel] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [error, setError] = useState<unknown>();
  const { items: keys, reload: load } = useApiList<ProviderKey>("/api/keys", setError);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api("POST", "/api/keys", {
        provider,
        apiKey,
        ...(label ? { label } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(model ? { model } : {}),
      });
      // The key leaves the page as soon as it is stored.
      setApiKey("");
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "section",
    null,
    h(PageHead, { title: t("keysTitle"), lead: t("keysLead") }),
    error ? h(ErrorNotice, { error }) : null,
    gate ??
      h(
        "form",
        { class: "card", onSubmit: submit },
        h(Select, {
          label: t("provider"),
          name: "provider",
          value: provider,
          options: PROVIDERS.map((p) => [p, p] as const),
          onChange: setProvider,
        }),
        h(Field, { label: t("label"), name: "label", value: label, onInput: setLabel }),
        h(Field, {
          label: t("apiKey"),
          name: "apiKey",
          type: "password",
          value: apiKey,
          onInput: setApiKey,
          required: true,
          autoComplete: "off",
        }),
        h(Field, { label: t("baseUrl"), name: "baseUrl", type: "url", value: baseUrl, onInput: setBaseUrl }),
        h(Field, { label: t("model"), name: "model", value: model, onInput: setModel }),
        h("button", { type: "submit", disabled: apiKey === "" }, t("addKey")),
      ),
    DataTable({
      rows: keys,
      empty: t("noKeys"),
      columns: [t("label"), t("provider"), t("key"), t("modelColumn"), t("actions")],
      row: (k) => h(KeyRow, { key: k.id, keyRecord: k, onChanged: () => void load() }),
    }),
  );
}
