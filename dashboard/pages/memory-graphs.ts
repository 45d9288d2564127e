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

/** One neighbour of a memory: the relation types from it to the neighbour (or, unpaired, back). */
export interface Neighbour {
  readonly other: string;
  /** Types of the edges memory → neighbour. */
  readonly out: readonly string[];
  /** Types of edges neighbour → memory that have no edge back (every link writes a pair, so rare). */
  readonly in: readonly string[];
}

/**
 * The relations as one entry per neighbour. Every link is stored as an edge and its inverse
 * (WORKS_AT one way, EMPLOYS the other), so a memory's incoming list repeats its outgoing one from
 * the other side: a neighbour reached by an outgoing edge is shown by that edge only, and incoming
 * edges count only for neighbours without an outgoing one.
 */
export function neighbours(relations: Relations): Neighbour[] {
  const byOther = new Map<string, { out: string[]; in: string[] }>();
  const entry = (other: string) => {
    let found = byOther.get(other);
    if (!found) {
      found = { out: [], in: [] };
      byOther.set(other, found);
    }
    return found;
  };
  for (const r of relations.outgoing) {
    const e = entry(r.to);
    if (!e.out.includes(r.relType)) e.out.push(r.relType);
  }
  for (const r of relations.incoming) {
    const e = entry(r.from);
    if (e.out.length === 0 && !e.in.includes(r.relType)) e.in.push(r.relType);
  }
  return [...byOther].map(([other, e]) => ({ other, out: e.out, in: e.out.length > 0 ? [] : e.in }));
}

/** A neighbour's relation types as one label ("WORKS_AT, KNOWS"). */
export const relationLabel = (n: Neighbour) => (n.out.length > 0 ? n.out : n.in).join(", ");

/**
 * The typed relations of one memory as a star graph (inline SVG, no script inside): one node per
 * neighbour, the relation types written along their line (so labels of neighbouring lines never
 * meet), the neighbour's title outside its node, anchored away from the centre.
 */
export function RelationGraph(props: { id: string; relations: Relations }): ComponentChildren {
  const around = neighbours(props.relations).slice(0, 12);
  const width = 640;
  const height = 420;
  const cx = width / 2;
  const cy = height / 2;
  const radius = 130;
  const nodeR = 22;
  const description = around
    .map((n) => `${n.out.length > 0 ? "→" : "←"} ${relationLabel(n)} ${label(n.other)}`)
    .join("; ");
  return h(
    "svg",
    {
      class: "graph",
      viewBox: `0 0 ${width} ${height}`,
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
    around.map((n, i) => {
      // An even count is turned half a step, so no line runs straight down through the centre's label.
      const turn = around.length % 2 === 0 ? Math.PI / around.length : 0;
      const angle = (2 * Math.PI * i) / Math.max(around.length, 1) - Math.PI / 2 + turn;
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const x = cx + radius * cos;
      const y = cy + radius * sin;
      const out = n.out.length > 0;
      // The line runs between the two circles' rims, so the arrow head stays visible.
      const inner = nodeR + 4;
      const outer = radius - nodeR - 2;
      const [from, to] = out ? [inner, outer] : [outer, inner];
      // Along the line, turned so it never reads upside down.
      let deg = (angle * 180) / Math.PI;
      if (deg > 90 || deg < -90) deg += 180;
      const mid = (inner + outer) / 2;
      const lx = cx + mid * cos;
      const ly = cy + mid * sin;
      // Outside the node, away from the centre: left of nodes on the left, right on the right.
      const anchor = cos > 0.3 ? "start" : cos < -0.3 ? "end" : "middle";
      const tx = cx + (radius + nodeR + 6) * cos;
      const ty = cy + (radius + nodeR + 6) * sin + (Math.abs(cos) <= 0.3 ? (sin > 0 ? 10 : -2) : 4);
      return h(
        "g",
        { key: n.other },
        h("line", {
          x1: cx + from * cos,
          y1: cy + from * sin,
          x2: cx + to * cos,
          y2: cy + to * sin,
          class: "edge",
          "marker-end": "url(#arrow)",
        }),
        h(
          "text",
          {
            x: lx,
            y: ly,
            dy: -4,
            class: "edge-label",
            "text-anchor": "middle",
            transform: `rotate(${deg.toFixed(1)} ${lx.toFixed(1)} ${ly.toFixed(1)})`,
          },
          short(relationLabel(n), 22),
        ),
        h("circle", { cx: x, cy: y, r: nodeR, class: "node" }),
        h("text", { x: tx, y: ty, class: "node-label", "text-anchor": anchor }, short(label(n.other), 18)),
      );
    }),
    h("circle", { cx, cy, r: nodeR + 2, class: "node center" }),
    h(
      "text",
      { x: cx, y: cy + nodeR + 16, class: "node-label center", "text-anchor": "middle" },
      short(label(props.id), 20),
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
  /** document or entry, and the memory type: what the relation registry's shape rules look at. */
  kind: string;
  memoryType: string;
  /** The full text, when asked for with ?content=true. */
  content?: string;
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
