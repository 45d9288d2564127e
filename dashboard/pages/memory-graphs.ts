import { type ComponentChildren, h } from "preact";
import { formatTime, t } from "../i18n.js";

// The explorer's two pictures, as inline SVG (no script inside): a memory's typed relations and the
// versions of its fact on a time axis. Shared state: the titles the page has seen.

export interface Relations {
  outgoing: { relType: string; to: string }[];
  incoming: { relType: string; from: string }[];
}

/** Titles of memories seen on this page (hits, recent list): the graph labels its nodes with them. */
export const titles = new Map<string, string>();
export const label = (id: string) => titles.get(id) ?? id.slice(0, 8);
const short = (text: string, max = 16) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The typed relations of one memory as a small star graph (inline SVG, no script inside). */
export function RelationGraph(props: { id: string; relations: Relations }): ComponentChildren {
  const edges = [
    ...props.relations.outgoing.map((r) => ({ rel: r.relType, other: r.to, out: true })),
    ...props.relations.incoming.map((r) => ({ rel: r.relType, other: r.from, out: false })),
  ].slice(0, 12);
  const size = 400;
  const c = size / 2;
  const radius = 125;
  const description = edges.map((e) => `${e.out ? "→" : "←"} ${e.rel} ${label(e.other)}`).join("; ");
  return h(
    "svg",
    {
      class: "graph",
      viewBox: `0 0 ${size} ${size}`,
      role: "img",
      "aria-label": `${t("relations")}: ${label(props.id)}${description ? `; ${description}` : ""}`,
    },
    h(
      "defs",
      null,
      h(
        "marker",
        {
          id: "arrow",
          viewBox: "0 0 10 10",
          refX: 10,
          refY: 5,
          markerWidth: 6,
          markerHeight: 6,
          orient: "auto",
        },
        h("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }),
      ),
    ),
    edges.map((e, i) => {
      const angle = (2 * Math.PI * i) / Math.max(edges.length, 1) - Math.PI / 2;
      const x = c + radius * Math.cos(angle);
      const y = c + radius * Math.sin(angle);
      const [x1, y1, x2, y2] = e.out ? [c, c, x, y] : [x, y, c, c];
      // Stop the line at the node's edge so the arrow head stays visible.
      const dx = x2 - x1;
      const dy = y2 - y1;
      const len = Math.hypot(dx, dy) || 1;
      return h(
        "g",
        { key: `${e.rel}-${e.other}-${i}` },
        h("line", {
          x1,
          y1,
          x2: x2 - (dx / len) * 26,
          y2: y2 - (dy / len) * 26,
          class: "edge",
          "marker-end": "url(#arrow)",
        }),
        h(
          "text",
          // Nearer the outer node than the centre, where the labels of all edges would crowd.
          { x: c + (x - c) * 0.6, y: c + (y - c) * 0.6 - 4, class: "edge-label", "text-anchor": "middle" },
          e.rel,
        ),
        h("circle", { cx: x, cy: y, r: 24, class: "node" }),
        h("text", { x, y: y + 40, class: "node-label", "text-anchor": "middle" }, short(label(e.other))),
      );
    }),
    h("circle", { cx: c, cy: c, r: 26, class: "node center" }),
    h(
      "text",
      { x: c, y: c + 44, class: "node-label center", "text-anchor": "middle" },
      short(label(props.id)),
    ),
  );
}

/** GET /api/memory/{id}/versions: the fact's history, oldest first. */
export interface Version {
  id: string;
  title: string;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  supersedesId: string | null;
  updateReason: string | null;
}

/**
 * The versions on one time axis: a bar per version for its valid time (open to the right while it
 * still holds) and a mark for its recorded (transaction) time; the list beside it says the same in words.
 */
export function VersionAxis(props: { versions: Version[]; current: string }): ComponentChildren {
  const now = Date.now();
  const times = props.versions.flatMap((v) => [
    Date.parse(v.validFrom),
    v.validTo ? Date.parse(v.validTo) : now,
    Date.parse(v.recordedAt),
  ]);
  const min = Math.min(...times);
  const max = Math.max(...times, min + 1);
  const width = 560;
  const left = 8;
  const span = width - 2 * left;
  const x = (ms: number) => left + ((ms - min) / (max - min)) * span;
  const row = 26;
  return h(
    "svg",
    {
      class: "axis",
      viewBox: `0 0 ${width} ${props.versions.length * row + 24}`,
      role: "img",
      "aria-label": `${t("versions")}: ${props.versions.length}`,
    },
    props.versions.map((v, i) => {
      const y = i * row + 6;
      const from = x(Date.parse(v.validFrom));
      const to = x(v.validTo ? Date.parse(v.validTo) : now);
      const recorded = x(Date.parse(v.recordedAt));
      return h(
        "g",
        { key: v.id },
        h("rect", {
          x: from,
          y,
          width: Math.max(to - from, 3),
          height: 14,
          rx: 3,
          class: v.id === props.current ? "valid now" : v.validTo ? "valid closed" : "valid",
        }),
        h("path", { d: `M${recorded},${y - 3} l4,10 l-4,10 l-4,-10 z`, class: "recorded" }),
      );
    }),
    h("line", {
      x1: left,
      x2: width - left,
      y1: props.versions.length * row + 8,
      y2: props.versions.length * row + 8,
      class: "base",
    }),
    h(
      "text",
      { x: left, y: props.versions.length * row + 22, class: "tick" },
      formatTime(new Date(min).toISOString()),
    ),
    h(
      "text",
      { x: width - left, y: props.versions.length * row + 22, class: "tick", "text-anchor": "end" },
      formatTime(new Date(max).toISOString()),
    ),
  );
}
