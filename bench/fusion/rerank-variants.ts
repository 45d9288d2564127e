/**
 * How the built-in reranker's score should enter the final order (issue 50 item 1): every variant runs
 * offline on channels recorded by `npm run bench:fusion` (fused order from the production fusion, the
 * reranker's recorded score per candidate) and is scored as nDCG@10 of full − fused per set, on the
 * first 100 queries (the `npm run eval -- --limit 100` sample) and on the rest.
 *
 *   npx tsx bench/fusion/rerank-variants.ts .tmp/fusion-channels
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { rerankContribution } from "../../core/recall/rerank/add-rerank-scores.js";
import { ndcgAt } from "../eval/retrieval-metrics.js";
import { calibratedFusion, PRODUCTION_SHARE, shareOf } from "./compare-variants.js";
import type { RecordedQuery, RecordedSet } from "./record-channels.js";

const DEPTH = 20;

interface Head {
  readonly ids: string[];
  readonly fused: number[];
  readonly rerank: number[];
  readonly words: number[];
  readonly queryWords: number;
}

type Variant = (h: Head) => number[];

const spearman = (a: readonly number[], b: readonly number[]) => {
  const rank = (x: readonly number[]) => {
    const order = x.map((v, i) => [v, i] as const).sort((p, q) => q[0] - p[0]);
    const r = new Array<number>(x.length);
    order.forEach(([, i], k) => {
      r[i] = k;
    });
    return r;
  };
  const ra = rank(a);
  const rb = rank(b);
  const n = a.length;
  let d = 0;
  for (let i = 0; i < n; i++) d += ((ra[i] ?? 0) - (rb[i] ?? 0)) ** 2;
  return n > 1 ? 1 - (6 * d) / (n * (n * n - 1)) : 0;
};

const added = (h: Head, w: (i: number) => number) => h.fused.map((f, i) => f + w(i) * (h.rerank[i] ?? 0));

const VARIANTS: Record<string, Variant> = {
  fused: (h) => h.fused,
  "now: +0.15 r": (h) => added(h, () => 0.15),
  "+0.10 r": (h) => added(h, () => 0.1),
  "+0.15 r·agree": (h) => {
    const rho = Math.max(0, spearman(h.fused, h.rerank));
    return added(h, () => 0.15 * rho);
  },
  "+0.15 r, qwords≤8": (h) => added(h, () => 0.15 * Math.min(1, 8 / Math.max(1, h.queryWords))),
  "+0.15 (r − r̄) capped 0.02": (h) => {
    const mean = h.rerank.reduce((s, r) => s + r, 0) / h.rerank.length;
    return h.fused.map((f, i) => f + Math.max(-0.02, Math.min(0.02, 0.15 * ((h.rerank[i] ?? 0) - mean))));
  },
  "+0.15 r / len^0.1 (rel. head median)": (h) => {
    const sorted = [...h.words].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 1;
    return h.fused.map((f, i) => f + (0.15 * (h.rerank[i] ?? 0)) / ((h.words[i] ?? 1) / median) ** 0.1);
  },
  "+0.15 r / len^0.2": (h) => {
    const sorted = [...h.words].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 1;
    return h.fused.map((f, i) => f + (0.15 * (h.rerank[i] ?? 0)) / ((h.words[i] ?? 1) / median) ** 0.2);
  },
  "hinge p75": (h) => hinge(h, 0.15, (s) => s[Math.floor(s.length * 0.75)] ?? 0),
  "hinge p25": (h) => hinge(h, 0.15, (s) => s[Math.floor(s.length * 0.25)] ?? 0),
  "hinge mean": (h) => hinge(h, 0.15, (s) => s.reduce((a, b) => a + b, 0) / s.length),
  "hinge median 0.2": (h) => hinge(h, 0.2, (s) => s[Math.floor(s.length / 2)] ?? 0),
  "hinge median 0.25": (h) => hinge(h, 0.25, (s) => s[Math.floor(s.length / 2)] ?? 0),
  "hinge median 0.1": (h) => hinge(h, 0.1, (s) => s[Math.floor(s.length / 2)] ?? 0),
  "hinge top-3 mean": (h) =>
    hinge(h, 0.15, () => ((h.rerank[0] ?? 0) + (h.rerank[1] ?? 0) + (h.rerank[2] ?? 0)) / 3),
  "hinge fused top-1": (h) => hinge(h, 0.15, () => h.rerank[0] ?? 0),
  "hinge median, depth 10": (h) => hinge(h, 0.15, (s) => s[Math.floor(s.length / 2)] ?? 0, 10),
  "+0.15 r × (1 − gap/0.1)": (h) => {
    const gap = (h.fused[0] ?? 0) - (h.fused[1] ?? 0);
    return added(h, () => 0.15 * Math.max(0, 1 - gap / 0.1));
  },
  "+0.15 r × max r": (h) => added(h, () => 0.15 * Math.min(1, Math.max(...h.rerank))),
  "+0.15 r × (max r − median r)": (h) => {
    const s = [...h.rerank].sort((a, b) => a - b);
    const spread = (s.at(-1) ?? 0) - (s[Math.floor(s.length / 2)] ?? 0);
    return added(h, () => 0.15 * Math.min(1, 2 * spread));
  },
  "+0.15 r only if r≥median r of head": (h) => {
    const s = [...h.rerank].sort((a, b) => a - b);
    const med = s[Math.floor(s.length / 2)] ?? 0;
    return h.fused.map((f, i) => f + 0.15 * Math.max(0, (h.rerank[i] ?? 0) - med));
  },
  "production (rerankContribution)": (h) =>
    h.fused.map((f, i) => f + (rerankContribution(h.rerank, 0.15)[i] ?? 0)),
};

/** fused + w · max(0, r − threshold over the head's sorted reranker scores). */
function hinge(h: Head, w: number, threshold: (sorted: number[]) => number, depth = 20): number[] {
  const sorted = h.rerank.slice(0, depth).sort((a, b) => a - b);
  const t = threshold(sorted);
  return h.fused.map((f, i) => f + (i < depth ? w * Math.max(0, (h.rerank[i] ?? 0) - t) : 0));
}

function headOf(q: RecordedQuery): { head: Head; tail: string[] } {
  const share = shareOf(q, PRODUCTION_SHARE);
  const fused = calibratedFusion(q, share);
  const head = fused.slice(0, DEPTH);
  const queryWords = (q.text ?? "").split(/\s+/u).filter((w) => w.length > 3).length;
  return {
    head: {
      ids: head.map((m) => m.memoryId),
      fused: head.map((m) => m.score),
      rerank: head.map((m) => q.rerank[m.memoryId] ?? 0),
      words: head.map((m) => q.words?.[m.memoryId] ?? 1),
      queryWords,
    },
    tail: fused.slice(DEPTH).map((m) => m.memoryId),
  };
}

function ndcg(q: RecordedQuery, variant: Variant): number {
  const { head, tail } = headOf(q);
  const scores = head.ids.length > 1 ? variant(head) : head.fused;
  const order = head.ids
    .map((id, i) => ({ id, i, s: scores[i] ?? 0 }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.id);
  const doc = new Map([...q.fulltext, ...q.vector].map((h) => [h.memoryId, h.doc]));
  return ndcgAt(
    [...order, ...tail].map((id) => doc.get(id) ?? id),
    new Set(q.relevant),
    10,
  );
}

const dir = process.argv[2] ?? ".tmp/fusion-channels";
const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
const sets = await Promise.all(
  files.map(async (f) => JSON.parse(await readFile(join(dir, f), "utf8")) as RecordedSet),
);
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
for (const part of ["first 100", "rest", "all"] as const) {
  const pick = (qs: readonly RecordedQuery[]) =>
    part === "first 100" ? qs.slice(0, 100) : part === "rest" ? qs.slice(100) : qs;
  process.stdout.write(`\n${part}: nDCG@10 full − fused per set (fused first)\n`);
  process.stdout.write(
    `${"variant".padEnd(40)}${sets.map((s) => s.dataset.slice(0, 13).padStart(14)).join("")}       min    mean\n`,
  );
  const base = sets.map((s) => mean(pick(s.queries).map((q) => ndcg(q, VARIANTS.fused ?? ((h) => h.fused)))));
  process.stdout.write(`${"fused".padEnd(40)}${base.map((b) => b.toFixed(4).padStart(14)).join("")}\n`);
  for (const [name, variant] of Object.entries(VARIANTS)) {
    if (name === "fused") continue;
    const deltas = sets.map((s, i) => mean(pick(s.queries).map((q) => ndcg(q, variant))) - (base[i] ?? 0));
    process.stdout.write(
      `${name.slice(0, 39).padEnd(40)}${deltas.map((d) => (d >= 0 ? `+${d.toFixed(4)}` : d.toFixed(4)).padStart(14)).join("")}  ${Math.min(
        ...deltas,
      )
        .toFixed(4)
        .padStart(8)}  ${mean(deltas).toFixed(4).padStart(6)}\n`,
    );
  }
}
