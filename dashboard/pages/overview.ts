import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { type MessageKey, t } from "../i18n.js";
import { DASHBOARD, type Session } from "../session.js";
import { ErrorNotice, Notice, PageHead } from "../ui.js";

/** GET /api/stats. */
interface Stats {
  memories: number;
  edges: number;
  chunks: number;
  queriesLast24h: number;
  p50Ms: number;
  p99Ms: number;
  memoryLimit: number | null;
  memoriesUsed: number;
  warnAt80: boolean;
}

function QuotaBar(props: { stats: Stats }): ComponentChildren {
  const { memoryLimit, memoriesUsed, warnAt80 } = props.stats;
  if (memoryLimit === null) {
    return h("p", null, t("quotaUnlimited", { used: memoriesUsed }));
  }
  const pct = memoryLimit > 0 ? Math.min(100, Math.round((memoriesUsed / memoryLimit) * 100)) : 100;
  return h(
    "div",
    null,
    h(
      "div",
      {
        class: warnAt80 ? "bar warn" : "bar",
        role: "progressbar",
        "aria-label": t("quota"),
        "aria-valuemin": 0,
        "aria-valuemax": memoryLimit,
        "aria-valuenow": memoriesUsed,
      },
      // A style object is set through the CSSOM, which the CSP allows (inline style attributes it does not).
      h("span", { class: "fill", style: { width: `${pct}%` } }),
    ),
    h("p", null, t("quotaUsed", { used: memoriesUsed, limit: memoryLimit, pct })),
    warnAt80
      ? h(
          Notice,
          { kind: "warn" },
          t("quotaWarn"),
          " ",
          h("a", { href: `${DASHBOARD}/billing` }, t("navBilling")),
        )
      : null,
  );
}

/** Counts, recall latency, plan and quota of the workspace. */
export function OverviewPage(props: { session: Session }): ComponentChildren {
  const [stats, setStats] = useState<Stats | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<Stats>("GET", "/api/stats")
      .then(setStats)
      .catch((e: unknown) => setError(e));
  }, []);
  const cards: readonly (readonly [MessageKey, string])[] = stats
    ? [
        ["memories", String(stats.memories)],
        ["edges", String(stats.edges)],
        ["chunks", String(stats.chunks)],
        ["queries24h", String(stats.queriesLast24h)],
        ["p50", `${stats.p50Ms} ms`],
        ["p99", `${stats.p99Ms} ms`],
      ]
    : [];
  return h(
    "section",
    null,
    h(PageHead, { title: t("overviewTitle") }),
    error ? h(ErrorNotice, { error }) : null,
    h(
      "dl",
      { class: "cards" },
      cards.map(([label, value]) =>
        h("div", { class: "card stat", key: label }, h("dt", null, t(label)), h("dd", null, value)),
      ),
    ),
    h(
      "div",
      { class: "card" },
      h("h2", null, t("currentPlan")),
      h("p", { class: "plan" }, props.session.plan ?? "—"),
      h("h2", null, t("quota")),
      stats ? h(QuotaBar, { stats }) : h("p", null, t("loading")),
    ),
  );
}
