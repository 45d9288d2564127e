/**
 * Does a worker pool of 2 really embed ~2× faster than 1 on this 2-core machine? Runs the CPU-bound test
 * provider (plain-JS work like the built-in embedder) through pools of 1 and 2 workers, best of 5, and
 * prints the load average so a busy machine is visible in the result.
 *
 *   npx tsx bench/pooled-embedder-speedup.ts   → bench/results/pooled-embedder-speedup.json
 */
import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { createPooledEmbedder } from "../core/models/create-pooled-embedder.js";

const input = Array.from({ length: 96 }, (_, i) => `speed ${i}`);
const options = { dim: 64, rounds: 400_000 };

async function best(size: number): Promise<number> {
  const embedder = await createPooledEmbedder({
    moduleUrl: new URL("../test/helpers/cpu-bound-embedder.ts", import.meta.url),
    exportName: "createCpuBoundEmbedder",
    options,
    tokenizer: { countTokens: (text) => text.length },
    size,
  });
  await embedder.embed(input, "passage");
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    await embedder.embed(input, "passage");
    fastest = Math.min(fastest, performance.now() - started);
  }
  await embedder.close?.();
  return fastest;
}

const before = loadavg()[0] ?? 0;
const one = await best(1);
const two = await best(2);
const result = {
  measuredAt: new Date().toISOString(),
  cores: availableParallelism(),
  loadAverage1mBefore: Number(before.toFixed(2)),
  texts: input.length,
  oneWorkerMs: Math.round(one),
  twoWorkersMs: Math.round(two),
  speedUp: Number((one / two).toFixed(2)),
};
console.log(JSON.stringify(result));
const results = new URL("./results/", import.meta.url);
await mkdir(results, { recursive: true });
await writeFile(new URL("pooled-embedder-speedup.json", results), `${JSON.stringify(result, null, 2)}\n`);
