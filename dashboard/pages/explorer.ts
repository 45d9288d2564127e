import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { formatTime, t } from "../i18n.js";
import { ErrorNotice, Field, PageHead } from "../ui.js";
import {
  label,
  neighbours,
  RelationGraph,
  type Relations,
  relationLabel,
  titles,
  type Version,
  VersionAxis,
} from "./memory-graphs.js";

interface Explanation {
  fulltextRank?: number;
  fulltextScore?: number;
  matchedTerms: string[];
  vectorRank?: number;
  vectorDistance?: number;
  fusedScore: number;
  rerankScore?: number;
  hops: number;
}

interface Hit {
  memoryId: string;
  title: string;
  snippet: string;
  score: number;
  source: string;
  hops: number;
  explanation?: Explanation;
}

interface RecentItem {
  id: string;
  title: string;
  createdAt: string;
  kind: string;
}

function why(e: Explanation): string {
  const parts: string[] = [];
  if (e.fulltextRank !== undefined)
    parts.push(`BM25 #${e.fulltextRank} (${e.fulltextScore?.toFixed(2) ?? "?"})`);
  if (e.vectorRank !== undefined)
    parts.push(`vector #${e.vectorRank} (d=${e.vectorDistance?.toFixed(3) ?? "?"})`);
  if (e.rerankScore !== undefined) parts.push(`rerank ${e.rerankScore.toFixed(3)}`);
  if (e.matchedTerms.length > 0) parts.push(`terms: ${e.matchedTerms.join(", ")}`);
  return parts.join(" · ");
}

function MemoryDetail(props: { id: string; onSelect: (id: string) => void }): ComponentChildren {
  const [relations, setRelations] = useState<Relations | undefined>();
  const [versions, setVersions] = useState<Version[] | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    setRelations(undefined);
    setVersions(undefined);
    const id = encodeURIComponent(props.id);
    api<Relations>("GET", `/api/memory/${id}/relations`)
      .then(setRelations)
      .catch((e: unknown) => setError(e));
    api<{ versions: Version[] }>("GET", `/api/memory/${id}/versions`)
      .then((r) => {
        for (const v of r.versions) titles.set(v.id, v.title);
        setVersions(r.versions);
      })
      .catch((e: unknown) => setError(e));
  }, [props.id]);
  // One entry per neighbour: a link's inverse edge is not listed again (memory-graphs.ts).
  const all = relations
    ? neighbours(relations).map((n) => ({
        rel: relationLabel(n),
        other: n.other,
        arrow: n.out.length > 0 ? "→" : "←",
      }))
    : [];
  return h(
    "article",
    { class: "card", "aria-live": "polite", "data-testid": "memory-detail" },
    h("h2", null, label(props.id)),
    h("p", { class: "help" }, h("code", null, props.id)),
    error ? h(ErrorNotice, { error }) : null,
    h("h3", null, t("versions")),
    versions
      ? h(
          "div",
          { class: "graph-wrap" },
          h(VersionAxis, { versions, current: props.id }),
          h(
            "ol",
            { class: "versions" },
            versions.map((v) =>
              h(
                "li",
                { key: v.id, class: v.id === props.id ? "now" : undefined, "data-version-id": v.id },
                v.id === props.id
                  ? h("strong", null, `${v.title} (${t("current")})`)
                  : h(
                      "button",
                      { type: "button", class: "link", onClick: () => props.onSelect(v.id) },
                      v.title,
                    ),
                h(
                  "span",
                  { class: "help" },
                  ` — ${t("validFrom")} ${formatTime(v.validFrom)}, ${
                    v.validTo ? `${t("validTo")} ${formatTime(v.validTo)}` : t("stillValid")
                  }; ${t("recordedAt")} ${formatTime(v.recordedAt)}`,
                  v.supersedesId ? ` · SUPERSEDES ${label(v.supersedesId)}` : "",
                  v.updateReason ? ` · ${v.updateReason}` : "",
                ),
              ),
            ),
          ),
        )
      : h("p", null, t("loading")),
    h("h3", null, t("relations")),
    relations
      ? all.length === 0
        ? h("p", null, t("noRelations"))
        : h(
            "div",
            { class: "graph-wrap" },
            h(RelationGraph, { id: props.id, relations }),
            h(
              "ul",
              { class: "relations" },
              all.map((r) =>
                h(
                  "li",
                  { key: r.other },
                  `${r.arrow} ${r.rel} `,
                  h(
                    "button",
                    { type: "button", class: "link", onClick: () => props.onSelect(r.other) },
                    label(r.other),
                  ),
                ),
              ),
            ),
          )
      : h("p", null, t("loading")),
  );
}

/** Search with the real recall (channel and score per hit), then a memory's versions and relations. */
export function ExplorerPage(): ComponentChildren {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<Hit[] | undefined>();
  const [latency, setLatency] = useState<number | undefined>();
  const [recent, setRecent] = useState<RecentItem[]>([]);
  const [selected, setSelected] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<{ items: RecentItem[] }>("GET", "/api/memory/recent?k=10")
      .then((r) => {
        for (const item of r.items) titles.set(item.id, item.title);
        setRecent(r.items);
      })
      .catch((e: unknown) => setError(e));
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const r = await api<{ hits: Hit[]; latencyMs: number }>("POST", "/api/memory/recall", {
        query,
        k: 10,
        explain: true,
      });
      for (const hit of r.hits) titles.set(hit.memoryId, hit.title);
      setHits(r.hits);
      setLatency(r.latencyMs);
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "section",
    null,
    h(PageHead, { title: t("explorerTitle") }),
    error ? h(ErrorNotice, { error }) : null,
    h(
      "form",
      { class: "card search", role: "search", onSubmit: submit },
      h(Field, {
        label: t("query"),
        name: "query",
        type: "search",
        value: query,
        onInput: setQuery,
        required: true,
      }),
      h("button", { type: "submit", disabled: query.trim() === "" }, t("search")),
    ),
    hits === undefined
      ? null
      : hits.length === 0
        ? h("p", { role: "status" }, t("noHits"))
        : h(
            "div",
            { class: "table-wrap" },
            h("p", { role: "status", class: "help" }, `${hits.length} · ${latency ?? 0} ms`),
            h(
              "table",
              { class: "hits" },
              h(
                "thead",
                null,
                h(
                  "tr",
                  null,
                  h("th", { scope: "col" }, t("name")),
                  h("th", { scope: "col" }, t("channel")),
                  h("th", { scope: "col" }, t("score")),
                  h("th", { scope: "col" }, t("why")),
                ),
              ),
              h(
                "tbody",
                null,
                hits.map((hit) =>
                  h(
                    "tr",
                    { key: hit.memoryId, "data-memory-id": hit.memoryId },
                    h(
                      "th",
                      { scope: "row" },
                      h(
                        "button",
                        { type: "button", class: "link", onClick: () => setSelected(hit.memoryId) },
                        hit.title,
                      ),
                      h("p", { class: "snippet" }, hit.snippet),
                    ),
                    h(
                      "td",
                      { "data-testid": "channel" },
                      h("span", { class: `badge ${hit.source}` }, hit.source),
                    ),
                    h("td", { "data-testid": "score" }, hit.score.toFixed(3)),
                    h(
                      "td",
                      { class: "why" },
                      hit.explanation ? why(hit.explanation) : `${t("hops")}: ${hit.hops}`,
                    ),
                  ),
                ),
              ),
            ),
          ),
    selected ? h(MemoryDetail, { id: selected, onSelect: setSelected }) : null,
    recent.length > 0
      ? h(
          "div",
          { class: "card" },
          h("h2", null, t("recent")),
          h(
            "ul",
            { class: "recent" },
            recent.map((item) =>
              h(
                "li",
                { key: item.id },
                h(
                  "button",
                  { type: "button", class: "link", onClick: () => setSelected(item.id) },
                  item.title,
                ),
                ` — ${formatTime(item.createdAt)}`,
              ),
            ),
          ),
        )
      : null,
  );
}
