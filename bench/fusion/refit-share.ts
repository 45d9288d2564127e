/**
 * Refits fusion's channel share (bias, coverage, vector margin; the size weight kept) on recorded
 * channels (`npm run bench:fusion -- --all --limit 300 --dump-dir DIR`), the objective of the 2026-11-24
 * fit: mean over the tune sets of full − best single channel, minus 10 × any tune set's shortfall below
 * −0.005. Grid, then a finer grid around the best. Prints full (fused + the production rerank) nDCG@10
 * per set for the production weights and the refit, tune and held-out sets apart (ADR 0570, issue 50).
 *
 *   npx tsx bench/fusion/refit-share.ts .tmp/fusion-channels
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChannelShareWeights } from "../../core/recall/fuse/fuse-calibrated-scores.js";
import { DEFAULT_RECALL_TUNING } from "../../core/recall/run-recall.js";
import {
  calibratedFusion,
  PRODUCTION_SHARE,
  scoreVariant,
  shareOf,
  TUNE_SETS,
  VARIANTS,
  type Variant,
} from "./compare-variants.js";
import type { RecordedQuery, RecordedSet } from "./record-channels.js";

const dir = process.argv[2] ?? ".tmp/fusion-channels";
const sets: RecordedSet[] = await Promise.all(
  (await readdir(dir))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map(async (f) => JSON.parse(await readFile(join(dir, f), "utf8")) as RecordedSet),
);

const variantOf =
  (weights: ChannelShareWeights): Variant =>
  (q: RecordedQuery) => {
    const share = shareOf(q, weights);
    const fused = calibratedFusion(q, share);
    return {
      order: fused.map((m) => m.memoryId),
      rerankShare: share,
      addedRerank: { scores: fused.map((m) => m.score), weight: DEFAULT_RECALL_TUNING.rerankScoreWeight },
    };
  };

const best = new Map(
  sets.map((s) => [
    s.dataset,
    Math.max(
      scoreVariant(s, VARIANTS.bm25 as Variant, false),
      scoreVariant(s, VARIANTS.vector as Variant, false),
    ),
  ]),
);
const tune = sets.filter((s) => TUNE_SETS.includes(s.dataset));

function objective(weights: ChannelShareWeights): number {
  const deltas = tune.map((s) => scoreVariant(s, variantOf(weights), true) - (best.get(s.dataset) ?? 0));
  const mean = deltas.reduce((a, b) => a + b, 0) / deltas.length;
  return mean - 10 * deltas.reduce((sum, d) => sum + Math.max(0, -0.005 - d), 0);
}

let top = { weights: PRODUCTION_SHARE, value: objective(PRODUCTION_SHARE) };
const production = top.value;
const range = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => from + i * step);
const search = (biases: number[], coverages: number[], margins: number[]) => {
  for (const bias of biases)
    for (const coverage of coverages)
      for (const vectorMargin of margins) {
        const weights = { ...PRODUCTION_SHARE, bias, coverage, vectorMargin };
        const value = objective(weights);
        if (value > top.value) top = { weights, value };
      }
};
search(range(-2.6, 0, 0.2), range(1, 4, 0.5), range(-8, 0, 1));
const c = top.weights;
search(
  range(c.bias - 0.2, c.bias + 0.2, 0.05),
  range(c.coverage - 0.5, c.coverage + 0.5, 0.125),
  range(c.vectorMargin - 1, c.vectorMargin + 1, 0.25),
);

const f = (x: number) => x.toFixed(3);
process.stdout.write(
  `objective production ${production.toFixed(4)} → refit ${top.value.toFixed(4)}; weights ${JSON.stringify(top.weights)}\n`,
);
process.stdout.write("set (* held out)      queries  best single  full production  full refit  Δ\n");
for (const s of sets) {
  const a = scoreVariant(s, variantOf(PRODUCTION_SHARE), true);
  const b = scoreVariant(s, variantOf(top.weights), true);
  process.stdout.write(
    `${(s.dataset + (TUNE_SETS.includes(s.dataset) ? "" : "*")).padEnd(20)} ${String(s.queries.length).padStart(7)}  ${f(best.get(s.dataset) ?? 0).padStart(11)}  ${f(a).padStart(15)}  ${f(b).padStart(10)}  ${(b - a >= 0 ? "+" : "") + f(b - a)}\n`,
  );
}
