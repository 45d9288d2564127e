import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { formatTime, t } from "../i18n.js";
import { ConfirmButton, ErrorNotice, Field, Notice, PageHead } from "../ui.js";
import { AddDocument } from "./add-document.js";
import { currentVersion, EraseMemory, FactEditor, LINEAGE_TYPES, LinkEditor } from "./memory-editing.js";
import {
  label,
  type Neighbour,
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

/** One unlink button per relation type to a neighbour (lineage types are history, never unlinked). */
function UnlinkButtons(props: {
  id: string;
  neighbour: Neighbour;
  onUnlinked: () => void;
  onError: (e: unknown) => void;
}): ComponentChildren {
  const { neighbour: n } = props;
  const outgoing = n.out.length > 0;
  const types = (outgoing ? n.out : n.in).filter((rel) => !LINEAGE_TYPES.has(rel));
  return types.map((rel) =>
    h(ConfirmButton, {
      key: rel,
      label: t("unlink"),
      object: `${rel} ${label(n.other)}`,
      question: t("unlinkConfirm", { rel, title: label(n.other) }),
      yes: t("unlinkYes"),
      onConfirm: async () => {
        const [from, to] = outgoing ? [props.id, n.other] : [n.other, props.id];
        const query = new URLSearchParams({ fromId: from, toId: to, relType: rel });
        try {
          await api("DELETE", `/api/relations?${query.toString()}`);
          props.onUnlinked();
        } catch (e) {
          props.onError(e);
        }
      },
    }),
  );
}

function MemoryDetail(props: {
  id: string;
  onSelect: (id: string) => void;
  /** Memories the page has seen: the link form's targets. */
  known: readonly string[];
  /** The fact is gone: its title and the ids of all its versions. */
  onErased: (title: string, ids: readonly string[]) => void;
}): ComponentChildren {
  const [relations, setRelations] = useState<Relations | undefined>();
  const [versions, setVersions] = useState<Version[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>();
  // Bumped after a link or unlink: the relations are read again.
  const [linkEpoch, setLinkEpoch] = useState(0);
  useEffect(() => {
    setVersions(undefined);
    setError(undefined);
    const id = encodeURIComponent(props.id);
    // With the full text: the edit box starts with the current version's content.
    api<{ versions: Version[] }>("GET", `/api/memory/${id}/versions?content=true`)
      .then((r) => {
        for (const v of r.versions) titles.set(v.id, v.title);
        setVersions(r.versions);
      })
      .catch((e: unknown) => setError(e));
  }, [props.id]);
  useEffect(() => {
    api<Relations>("GET", `/api/memory/${encodeURIComponent(props.id)}/relations`)
      .then(setRelations)
      .catch((e: unknown) => setError(e));
  }, [props.id, linkEpoch]);
  const relinked = (message: string) => {
    setNotice(message);
    setLinkEpoch((n) => n + 1);
  };
  // One entry per neighbour: a link's inverse edge is not listed again (memory-graphs.ts).
  const all = relations ? neighbours(relations) : [];
  const current = versions ? currentVersion(versions) : undefined;
  const lineage = new Set(versions?.map((v) => v.id) ?? []);
  return h(
    "article",
    { class: "card", "aria-live": "polite", "data-testid": "memory-detail" },
    h("h2", null, label(props.id)),
    h("p", { class: "help" }, h("code", null, props.id)),
    error ? h(ErrorNotice, { error }) : null,
    notice ? h(Notice, { kind: "info" }, notice) : null,
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
                  v.updateReason ? ` · ${t("changeReason")}: ${v.updateReason}` : "",
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
              all.map((n) =>
                h(
                  "li",
                  { key: n.other, "data-neighbour": n.other },
                  `${n.out.length > 0 ? "→" : "←"} ${relationLabel(n)} `,
                  h(
                    "button",
                    { type: "button", class: "link", onClick: () => props.onSelect(n.other) },
                    label(n.other),
                  ),
                  h(UnlinkButtons, {
                    id: props.id,
                    neighbour: n,
                    onUnlinked: () => relinked(t("unlinked", { title: label(n.other) })),
                    onError: setError,
                  }),
                ),
              ),
            ),
          )
      : h("p", null, t("loading")),
    current
      ? h(
          "div",
          { class: "editing" },
          h(FactEditor, {
            current,
            onSaved: (newId) => {
              setNotice(t("versionSaved"));
              props.onSelect(newId);
            },
          }),
          h(LinkEditor, {
            id: current.id,
            source: { kind: current.kind, memoryType: current.memoryType },
            candidates: props.known.filter((id) => !lineage.has(id)),
            onLinked: relinked,
          }),
          h(EraseMemory, { id: current.id, onErased: (title) => props.onErased(title, [...lineage]) }),
        )
      : null,
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
  const [erased, setErased] = useState<string | undefined>();
  // Bumped after an edit: the newest list is read again.
  const [epoch, setEpoch] = useState(0);
  useEffect(() => {
    api<{ items: RecentItem[] }>("GET", "/api/memory/recent?k=10")
      .then((r) => {
        for (const item of r.items) titles.set(item.id, item.title);
        setRecent(r.items);
      })
      .catch((e: unknown) => setError(e));
  }, [epoch]);
  // Opening a memory from the hits or the newest list; the erasure notice has done its job.
  const open = (id: string) => {
    setErased(undefined);
    setSelected(id);
  };
  // From the detail (another version, a neighbour, a new version): the newest list may have changed.
  const select = (id: string) => {
    open(id);
    setEpoch((n) => n + 1);
  };
  // The link form's targets: every memory the page shows, once.
  const known = [...new Set([...(hits ?? []).map((hit) => hit.memoryId), ...recent.map((item) => item.id)])];
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
    h(PageHead, { title: t("explorerTitle"), lead: t("explorerLead") }),
    error ? h(ErrorNotice, { error }) : null,
    erased ? h(Notice, { kind: "info" }, t("erased", { title: erased })) : null,
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
                        { type: "button", class: "link", onClick: () => open(hit.memoryId) },
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
    selected
      ? h(MemoryDetail, {
          id: selected,
          onSelect: select,
          known,
          onErased: (title: string, ids: readonly string[]) => {
            // Gone everywhere: the detail closes, hits and the newest list no longer show it.
            setSelected(undefined);
            setHits((old) => old?.filter((hit) => !ids.includes(hit.memoryId)));
            setErased(title);
            setEpoch((n) => n + 1);
          },
        })
      : null,
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
                h("button", { type: "button", class: "link", onClick: () => open(item.id) }, item.title),
                ` — ${formatTime(item.createdAt)}`,
              ),
            ),
          ),
        )
      : null,
    // Indexed: the newest list is read again and shows it.
    h(AddDocument, { onStored: () => setEpoch((n) => n + 1) }),
  );
}
