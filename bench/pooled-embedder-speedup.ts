/**
 * Does a worker pool of 2 really embed ~2× faster than 1 on this 2-core machine? Runs the CPU-bound test
 * provider (plain-JS work like the built-in embedder) through pools of 1 and 2 workers, alternating
 * between them so that changing background load hits both alike, and reports medians together with the
 * load average — on a shared machine the second core is often taken by something else.
 *
 *   npx tsx bench/pooled-embedder-speedup.ts   → bench/results/pooled-embedder-speedup.json
 */
import { availableParallelism, loadavg } from "node:os";
import { createPooledEmbedder } from "../core/models/create-pooled-embedder.js";
import type { EmbeddingProvider } from "../core/models/embedding-provider.js";
import { writeBenchResult } from "./write-result.js";

const ROUNDS = 9;
const input = Array.from({ length: 96 }, (_, i) => `speed ${i}`);

function pool(size: number): Promise<EmbeddingProvider> {
  return createPooledEmbedder({
    moduleUrl: new URL("../test/helpers/cpu-bound-embedder.ts", import.meta.url),
    exportName: "createCpuBoundEmbedder",
    options: { dim: 64, rounds: 400_000 },
    tokenizer: { countTokens: (text) => text.length },
    size,
  });
}

async function time(embedder: EmbeddingProvider): Promise<number> {
  const started = performance.now();
  await embedder.embed(input, "passage");
  return performance.now() - started;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const loadBefore = loadavg()[0] ?? 0;
const one = await pool(1);
const two = await pool(2);
await time(one); // warm up every worker's JIT
await time(two);
const oneMs: number[] = [];
const twoMs: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const a = await time(one);
  const b = await time(two);
  oneMs.push(a);
  twoMs.push(b);
  ratios.push(a / b);
}
await one.close?.();
await two.close?.();

writeBenchResult("pooled-embedder-speedup", {
  cores: availableParallelism(),
  loadAverage1m: { before: Number(loadBefore.toFixed(2)), after: Number((loadavg()[0] ?? 0).toFixed(2)) },
  texts: input.length,
  rounds: ROUNDS,
  oneWorkerMedianMs: Math.round(median(oneMs)),
  twoWorkersMedianMs: Math.round(median(twoMs)),
  speedUpMedian: Number(median(ratios).toFixed(2)),
  speedUpRange: [Number(Math.min(...ratios).toFixed(2)), Number(Math.max(...ratios).toFixed(2))],
  note: "A load average above the core count means other processes held the cores; the speed-up is then bounded by what was left.",
});
