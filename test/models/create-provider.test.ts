import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { createEmbeddingProvider } from "../../core/models/create-embedding-provider.js";
import { createReranker } from "../../core/models/create-reranker.js";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Reranker } from "../../core/models/reranker.js";
import { burn } from "../helpers/cpu-bound-embedder.js";
import { embeddingsReply, type FakeServer, inputsOf, startFakeServer } from "../helpers/fake-http-server.js";
import {
  buildCrossEncoderModel,
  buildEmbeddingModel,
  createTinyModel,
  writeModelDir,
} from "../helpers/onnx-models.js";

const model = createTinyModel(8);
let scratch = "";
let server: FakeServer;
test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "create-provider-"));
  await writeModelDir(
    join(scratch, "embedder"),
    model,
    buildEmbeddingModel(model, { output: "last_hidden_state" }),
  );
  await writeModelDir(join(scratch, "reranker"), model, buildCrossEncoderModel(model), { bare: true });
  server = await startFakeServer((request) =>
    request.path.endsWith("/embeddings")
      ? { json: embeddingsReply(inputsOf(request), 4) }
      : { json: [{ index: 0, score: 0.9 }] },
  );
});
test.after.always(async () => {
  await server.close();
  await rm(scratch, { recursive: true, force: true });
});

const TEXTS = ["Die Katze schläft auf dem Sofa.", "the dog barks", "rain", "der hund bellt im garten"];

test("onnx in worker threads gives the same vectors and token counts as onnx in the calling thread", async (t) => {
  const modelDir = join(scratch, "embedder");
  const local = await createEmbeddingProvider({ kind: "onnx", modelDir });
  const pooled = await createEmbeddingProvider({ kind: "onnx", modelDir, workers: 2, threads: 1 });
  t.is(pooled.id, local.id);
  t.is(pooled.dim, local.dim);
  t.is(pooled.tokenizer.countTokens(TEXTS[0] ?? ""), local.tokenizer.countTokens(TEXTS[0] ?? ""));
  const [a, b] = await Promise.all([local.embed(TEXTS, "passage"), pooled.embed(TEXTS, "passage")]);
  TEXTS.forEach((_, i) => {
    const diff = Math.max(
      ...Array.from(a[i] ?? [], (value, j) => Math.abs(value - (b[i]?.[j] ?? Number.NaN))),
    );
    t.true(diff < 1e-6, `text ${i} differs by ${diff}`);
  });
  await local.close?.();
  await pooled.close?.();
});

test("http selects the OpenAI-compatible provider", async (t) => {
  const provider = await createEmbeddingProvider({ kind: "http", url: `${server.url}/v1`, model: "bge-m3" });
  t.is(provider.id, "http:bge-m3:4");
  t.is((await provider.embed(["x"], "query"))[0]?.length, 4);
});

test("builtin calls the injected factory", async (t) => {
  const builtin: EmbeddingProvider = {
    id: "builtin:test:4",
    dim: 4,
    tokenizer: { countTokens: () => 1 },
    embed: async (texts) => texts.map(() => Float32Array.of(1, 0, 0, 0)),
  };
  t.is(await createEmbeddingProvider({ kind: "builtin", create: () => builtin }), builtin);
  t.is(await createEmbeddingProvider({ kind: "builtin", create: async () => builtin }), builtin);
});

test("pooled runs any factory module in workers", async (t) => {
  const provider = await createEmbeddingProvider({
    kind: "pooled",
    moduleUrl: new URL("../helpers/cpu-bound-embedder.ts", import.meta.url),
    exportName: "createCpuBoundEmbedder",
    options: { dim: 4, rounds: 100 },
    tokenizer: { countTokens: () => 1 },
    size: 1,
  });
  t.deepEqual(await provider.embed(["a"], "query"), [burn("a", 4, 100)]);
  await provider.close?.();
});

test("createReranker selects onnx, http and builtin rerankers", async (t) => {
  const onnx = await createReranker({ kind: "onnx", modelDir: join(scratch, "reranker") });
  t.is((await onnx.rerank("q", [{ id: "a", title: "", text: "rain" }])).length, 1);
  await onnx.close?.();
  const http = await createReranker({ kind: "http", url: server.url, api: "tei" });
  t.deepEqual(await http.rerank("q", [{ id: "a", title: "", text: "x" }]), [0.9]);
  const builtin: Reranker = { id: "builtin", rerank: async (_query, candidates) => candidates.map(() => 0) };
  t.is(await createReranker({ kind: "builtin", create: () => builtin }), builtin);
});
