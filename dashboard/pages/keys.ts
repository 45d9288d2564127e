import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api.js";
import { formatTime, t } from "../i18n.js";
import type { Session } from "../session.js";
import {
  ConfirmButton,
  DataTable,
  ErrorNotice,
  Field,
  missingFeature,
  Notice,
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
      { "data-testid": "used-for" },
      k.usedFor.length === 0
        ? t("notUsed")
        : k.usedFor
            .map((u) => (u === "embeddings" ? t("usedForEmbeddings") : t("usedForReranking")))
            .join(", "),
    ),
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

/** GET /api/keys/selection. */
interface Selection {
  embeddingKeyId: string | null;
  rerankKeyId: string | null;
  activeEmbeddingSpace: string;
  reembed: { targetSpace: string; total: number; done: number } | null;
}

/** Providers with a rerank API (docs/providers.md); core refuses the others for reranking too. */
const RERANKERS: ReadonlySet<string> = new Set(["cohere", "voyage", "jina"]);

/** How often the page reads the re-embed progress while one runs. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Which key embeds and which reranks (PUT /api/keys/selection). A new embedder re-embeds every memory
 * in the background; the progress is read every second until recall has switched to the new space.
 */
function SelectionCard(props: {
  keys: readonly ProviderKey[];
  epoch: number;
  /** The list's "Used for" column follows the new choice. */
  onSaved: () => void;
}): ComponentChildren {
  const [selection, setSelection] = useState<Selection | undefined>();
  const [embedding, setEmbedding] = useState("");
  const [rerank, setRerank] = useState("");
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const show = (s: Selection) => {
    setSelection(s);
    setEmbedding(s.embeddingKeyId ?? "");
    setRerank(s.rerankKeyId ?? "");
  };
  useEffect(() => {
    api<Selection>("GET", "/api/keys/selection")
      .then(show)
      .catch((e: unknown) => setError(e));
  }, [props.epoch]);
  // While a re-embed runs, its progress is read again every second.
  const running = selection?.reembed !== null && selection?.reembed !== undefined;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      api<Selection>("GET", "/api/keys/selection")
        .then(setSelection)
        .catch((e: unknown) => setError(e));
    }, PROGRESS_EVERY_MS);
    return () => clearInterval(timer);
  }, [running]);
  const name = (k: ProviderKey) => `${k.label || k.provider} (${k.provider}, ${k.maskedKey})`;
  const own = t("serviceModel");
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      show(
        await api<Selection>("PUT", "/api/keys/selection", {
          embeddingKeyId: embedding === "" ? null : embedding,
          rerankKeyId: rerank === "" ? null : rerank,
        }),
      );
      setSaved(true);
      props.onSaved();
    } catch (e) {
      setError(e);
    }
  };
  const reembed = selection?.reembed;
  return h(
    "form",
    { class: "card", onSubmit: submit, "data-testid": "model-selection" },
    h("h2", null, t("selectionTitle")),
    h("p", { class: "help" }, t("selectionLead")),
    error ? h(ErrorNotice, { error }) : null,
    saved && !reembed ? h(Notice, { kind: "info" }, t("selectionSaved")) : null,
    h(Select, {
      label: t("embeddingKey"),
      name: "embedding-key",
      value: embedding,
      options: [["", own], ...props.keys.map((k) => [k.id, name(k)] as const)],
      onChange: setEmbedding,
    }),
    h(Select, {
      label: t("rerankKey"),
      name: "rerank-key",
      value: rerank,
      options: [
        ["", own],
        ...props.keys.filter((k) => RERANKERS.has(k.provider)).map((k) => [k.id, name(k)] as const),
      ],
      onChange: setRerank,
    }),
    h("p", { class: "help" }, t("rerankHelp")),
    selection
      ? h(
          "p",
          { "data-testid": "active-space" },
          `${t("activeSpace")}: `,
          h("code", null, selection.activeEmbeddingSpace),
        )
      : null,
    reembed
      ? h(
          "div",
          { class: "reembed", role: "status", "data-testid": "reembed" },
          h(
            "p",
            null,
            t("reembedding", { done: reembed.done, total: reembed.total, space: reembed.targetSpace }),
          ),
          h(
            "div",
            {
              class: "bar",
              role: "progressbar",
              "aria-label": t("reembedProgress"),
              "aria-valuemin": 0,
              "aria-valuemax": reembed.total,
              "aria-valuenow": reembed.done,
            },
            // A style object goes through the CSSOM, which the CSP allows (a style attribute it does not).
            h("span", {
              class: "fill",
              style: {
                width: `${reembed.total > 0 ? Math.round((100 * reembed.done) / reembed.total) : 0}%`,
              },
            }),
          ),
        )
      : null,
    h("button", { type: "submit", disabled: !selection || running }, t("saveSelection")),
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
  // Bumped when the keys change: the selection is read again (a deleted key falls back).
  const [epoch, setEpoch] = useState(0);
  const changed = () => {
    setEpoch((n) => n + 1);
    return load();
  };
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
      await changed();
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
      columns: [t("label"), t("provider"), t("key"), t("modelColumn"), t("usedFor"), t("actions")],
      row: (k) => h(KeyRow, { key: k.id, keyRecord: k, onChanged: () => void changed() }),
    }),
    gate || !keys ? null : h(SelectionCard, { keys, epoch, onSaved: () => void load() }),
  );
}
