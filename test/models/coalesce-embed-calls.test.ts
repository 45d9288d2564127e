import test from "ava";
import { coalesceEmbedCalls } from "../../core/models/coalesce-embed-calls.js";
import { createPooledEmbedder } from "../../core/models/create-pooled-embedder.js";
import type { EmbeddingProvider, EmbedPurpose } from "../../core/models/embedding-provider.js";
import { ProviderError, type ProviderErrorReason } from "../../core/models/provider-error.js";
import { burn } from "../helpers/cpu-bound-embedder.js";

// StoreMemories' entries each start an embedding on an immediate of their own; merged per turn of
// the event loop they reach a worker pool as one call instead of one job per entry.

const MODULE = new URL("../helpers/cpu-bound-embedder.ts", import.meta.url);
const tokenizer = { countTokens: (text: string) => text.split(/\s+/).filter(Boolean).length };

/** `n` calls of one text each, every call from an immediate of its own (as startEmbedding makes them). */
function callsFromImmediates(embedder: EmbeddingProvider, n: number): Promise<Float32Array[][]> {
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<Float32Array[]>((resolve, reject) =>
          setImmediate(() => embedder.embed([`entry ${i}`], "passage").then(resolve, reject)),
        ),
    ),
  );
}

/** A pool of one worker whose queue holds 8 jobs. */
const smallPool = () =>
  createPooledEmbedder({
    moduleUrl: MODULE,
    exportName: "createCpuBoundEmbedder",
    options: { dim: 8, rounds: 200 },
    tokenizer,
    size: 1,
    maxQueuedJobs: 8,
  });

test("without merging, 60 one-text calls in one turn overflow a queue of 8 jobs", async (t) => {
  const pool = await smallPool();
  const settled = await Promise.allSettled(
    Array.from({ length: 60 }, (_, i) => pool.embed([`entry ${i}`], "passage")),
  );
  const refused = settled.filter((r) => r.status === "rejected");
  t.true(refused.length >= 50);
  for (const r of refused) t.true(r.reason instanceof ProviderError && r.reason.reason === "overloaded");
  await pool.close?.();
});

test("merged, a worker pool gets one call per turn: 60 entries pass a queue of 8 jobs, each with its own vector", async (t) => {
  const pool = await smallPool();
  const merged = coalesceEmbedCalls(pool);
  t.is(merged.id, pool.id);
  t.is(merged.dim, pool.dim);
  const vectors = await callsFromImmediates(merged, 60);
  t.is(vectors.length, 60);
  for (const [i, own] of vectors.entries()) t.deepEqual(own, [burn(`entry ${i}`, 8, 200)]);
  await pool.close?.();
});

/**
 * Records each call; a text's vector says its purpose and text length. A call holding the text "fail"
 * fails with `failure` (the whole call, as a provider answering 400 or 503 does).
 */
function recordingEmbedder(
  calls: { texts: readonly string[]; purpose: EmbedPurpose }[],
  failure: ProviderErrorReason = "unavailable",
): EmbeddingProvider {
  return {
    id: "recording",
    dim: 2,
    tokenizer,
    async embed(texts, purpose) {
      calls.push({ texts, purpose });
      if (texts.includes("fail"))
        throw new ProviderError("refused", { provider: "recording", reason: failure });
      return texts.map((text) => Float32Array.of(purpose === "query" ? 1 : 0, text.length));
    },
  };
}

test("calls of one turn become one call per purpose; each caller gets its own vectors in order", async (t) => {
  const calls: { texts: readonly string[]; purpose: EmbedPurpose }[] = [];
  const merged = coalesceEmbedCalls(recordingEmbedder(calls));
  const [a, b, c, none] = await Promise.all([
    merged.embed(["x", "yy"], "passage"),
    merged.embed(["zzz"], "query"),
    merged.embed(["wwww"], "passage"),
    merged.embed([], "passage"),
  ]);
  t.deepEqual(calls, [
    { texts: ["x", "yy", "wwww"], purpose: "passage" },
    { texts: ["zzz"], purpose: "query" },
  ]);
  t.deepEqual(a, [Float32Array.of(0, 1), Float32Array.of(0, 2)]);
  t.deepEqual(b, [Float32Array.of(1, 3)]);
  t.deepEqual(c, [Float32Array.of(0, 4)]);
  t.deepEqual(none, []);
  // A later turn is a call of its own.
  await merged.embed(["later"], "passage");
  t.is(calls.length, 3);
});

test("a merged call the provider refuses for one text is tried per caller: only that caller fails", async (t) => {
  // StoreMemories with an HTTP provider: one entry the provider refuses (400, too long) must not fail
  // the other 99 entries merged into the same request.
  const calls: { texts: readonly string[]; purpose: EmbedPurpose }[] = [];
  const merged = coalesceEmbedCalls(recordingEmbedder(calls, "rejected"));
  const [ok, refused, alsoOk] = await Promise.allSettled([
    merged.embed(["ok"], "passage"),
    merged.embed(["fail"], "passage"),
    merged.embed(["fine", "too"], "passage"),
  ]);
  t.deepEqual(ok, { status: "fulfilled", value: [Float32Array.of(0, 2)] });
  t.is(refused.status, "rejected");
  if (refused.status === "rejected") t.is((refused.reason as ProviderError).reason, "rejected");
  t.deepEqual(alsoOk, { status: "fulfilled", value: [Float32Array.of(0, 4), Float32Array.of(0, 3)] });
  t.deepEqual(
    calls.map((c) => c.texts),
    [["ok", "fail", "fine", "too"], ["ok"], ["fail"], ["fine", "too"]],
  );
});

test("an outage fails every caller of the merged call at once, without a request per caller", async (t) => {
  const calls: { texts: readonly string[]; purpose: EmbedPurpose }[] = [];
  const merged = coalesceEmbedCalls(recordingEmbedder(calls, "unavailable"));
  const results = await Promise.allSettled([
    merged.embed(["ok"], "passage"),
    merged.embed(["fail"], "passage"),
  ]);
  for (const result of results) {
    t.is(result.status, "rejected");
    if (result.status === "rejected") t.is((result.reason as ProviderError).reason, "unavailable");
  }
  t.is(calls.length, 1);
});

test("an embedder that keeps calls apart (the built-in one on the calling thread) is used as it is", (t) => {
  const embedder = { ...recordingEmbedder([]), keepCallsApart: true };
  t.is(coalesceEmbedCalls(embedder), embedder);
});
