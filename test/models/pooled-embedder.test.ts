import { availableParallelism } from "node:os";
import test from "ava";
import {
  createPooledEmbedder,
  type PooledEmbedderOptions,
} from "../../core/models/create-pooled-embedder.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import { ProviderError } from "../../core/models/provider-error.js";
import { burn, type CpuBoundEmbedderOptions } from "../helpers/cpu-bound-embedder.js";

/** The worker pool running a CPU-bound TypeScript provider module in worker threads (under tsx). */

const MODULE = new URL("../helpers/cpu-bound-embedder.ts", import.meta.url);
const tokenizer = { countTokens: (text: string) => text.split(/\s+/).filter(Boolean).length };

function pool(
  options: CpuBoundEmbedderOptions,
  extra: Partial<PooledEmbedderOptions> = {},
): Promise<EmbeddingProvider> {
  return createPooledEmbedder({
    moduleUrl: MODULE,
    exportName: "createCpuBoundEmbedder",
    options,
    tokenizer,
    size: 2,
    ...extra,
  });
}

const texts = (n: number, prefix = "text") => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

test("workers return the provider's vectors in input order; id and dim come from the workers", async (t) => {
  const embedder = await pool({ dim: 12, rounds: 2000 });
  t.is(embedder.id, "test-cpu:12");
  t.is(embedder.dim, 12);
  t.is(embedder.tokenizer, tokenizer);
  const input = texts(100);
  const vectors = await embedder.embed(input, "passage");
  t.is(vectors.length, 100);
  for (const [i, text] of input.entries()) t.deepEqual(vectors[i], burn(text, 12, 2000));
  t.deepEqual(await embedder.embed([], "query"), []);
  await embedder.close?.();
});

test("two workers embed at the same time (both reach a shared barrier)", async (t) => {
  const memory = new SharedArrayBuffer(4);
  const embedder = await pool({ barrier: { memory, parties: 2 } }, { size: 2 });
  const vectors = await embedder.embed(["a", "b"], "passage");
  t.deepEqual(vectors, [Float32Array.of(1), Float32Array.of(1)]);
  await embedder.close?.();
});

test("concurrent calls are all answered", async (t) => {
  const embedder = await pool({ dim: 8, rounds: 500 });
  const calls = Array.from({ length: 20 }, (_, c) => embedder.embed(texts(7, `call ${c}`), "query"));
  const results = await Promise.all(calls);
  for (const [c, vectors] of results.entries()) {
    for (const [i, text] of texts(7, `call ${c}`).entries()) t.deepEqual(vectors[i], burn(text, 8, 500));
  }
  await embedder.close?.();
});

test("a provider error reaches the caller as a ProviderError with its reason; the pool keeps working", async (t) => {
  const embedder = await pool({ dim: 4, rounds: 10, failOn: "kaputt" });
  const error = await t.throwsAsync(embedder.embed(["gut", "kaputt"], "passage"), {
    instanceOf: ProviderError,
  });
  t.is(error?.reason, "inference_failed");
  t.regex(error?.message ?? "", /kaputt/);
  t.deepEqual(await embedder.embed(["gut"], "passage"), [burn("gut", 4, 10)]);
  await embedder.close?.();
});

test("a worker that dies fails its job and is replaced", async (t) => {
  const embedder = await pool({ dim: 4, rounds: 10, exitOn: "exit" }, { size: 1 });
  const error = await t.throwsAsync(embedder.embed(["exit"], "passage"), { instanceOf: ProviderError });
  t.regex(error?.message ?? "", /exited with code 3/);
  // The replacement starts asynchronously; the next call waits in the queue until it is ready.
  t.deepEqual(await embedder.embed(["danach"], "passage"), [burn("danach", 4, 10)]);
  await embedder.close?.();
});

test("a factory that fails to start fails createPooledEmbedder with its message", async (t) => {
  const error = await t.throwsAsync(pool({ failToStart: true }), { instanceOf: ProviderError });
  t.regex(error?.message ?? "", /refused to start/);
});

test("an export that is not a factory is refused", async (t) => {
  const error = await t.throwsAsync(
    createPooledEmbedder({ moduleUrl: MODULE, exportName: "burnNothing", tokenizer, size: 1 }),
    { instanceOf: ProviderError },
  );
  t.regex(error?.message ?? "", /does not export a function "burnNothing"/);
});

test("the queue is bounded: work beyond maxQueuedJobs is refused as overloaded", async (t) => {
  const embedder = await pool({ dim: 4, rounds: 10 }, { size: 1, maxQueuedJobs: 3, jobSize: 1 });
  const error = await t.throwsAsync(embedder.embed(texts(5), "passage"), { instanceOf: ProviderError });
  t.is(error?.reason, "overloaded");
  t.true(error?.retryable);
  t.is((await embedder.embed(texts(3), "passage")).length, 3);
  await embedder.close?.();
});

test("close lets workers exit, then embed refuses work", async (t) => {
  const embedder = await pool({ dim: 4, rounds: 10 });
  await embedder.embed(["a"], "query");
  await embedder.close?.();
  const error = await t.throwsAsync(embedder.embed(["a"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "closed");
});

test.serial("two workers against one on a CPU-bound provider (speed-up logged)", async (t) => {
  const work = { dim: 64, rounds: 400_000 };
  const input = texts(48, "speed");
  const measure = async (size: number) => {
    const embedder = await pool(work, { size });
    await embedder.embed(input, "passage"); // warm up every worker's JIT on the same work
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const vectors = await embedder.embed(input, "passage");
      best = Math.min(best, performance.now() - started);
      t.deepEqual(vectors[47], burn("speed 47", 64, 400_000));
    }
    await embedder.close?.();
    return best;
  };
  const one = await measure(1);
  const two = await measure(2);
  t.log(
    `${input.length} texts, best of 3: 1 worker ${one.toFixed(0)} ms, 2 workers ${two.toFixed(0)} ms, speed-up ×${(one / two).toFixed(2)} on ${availableParallelism()} cores (other test files may share them)`,
  );
});
