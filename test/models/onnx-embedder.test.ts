import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import test from "ava";
import { createOnnxEmbedder } from "../../core/models/onnx/create-onnx-embedder.js";
import { ProviderError } from "../../core/models/provider-error.js";
import {
  buildEmbeddingModel,
  createTinyModel,
  type EmbeddingModelSpec,
  l2Normalize,
  type ModelDirSpec,
  meanRows,
  referenceHidden,
  referenceIds,
  type TinyModel,
  writeModelDir,
} from "../helpers/onnx-models.js";

/**
 * The ONNX embedder against tiny graphs the test writes itself; every expected vector is computed again
 * in plain TypeScript (token states → pooling → L2 normalisation).
 */

const model = createTinyModel(8);
const TEXTS = [
  "Die Katze schläft auf dem Sofa.",
  "the dog barks",
  "Der Hund bellt im Garten, und die Katze schläft.",
  "rain",
  "Heute ist das Wetter sunny und der Datenschutzbeauftragte schläft.",
];

let scratch = "";
test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "onnx-embedder-"));
});
test.after.always(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let dirCount = 0;
async function modelDir(spec: EmbeddingModelSpec, dirSpec: ModelDirSpec = {}, tiny: TinyModel = model) {
  const dir = join(scratch, `model-${dirCount++}`);
  await writeModelDir(dir, tiny, buildEmbeddingModel(tiny, spec), dirSpec);
  return dir;
}

function expectedMean(text: string, maxLength = 512): number[] {
  return l2Normalize(meanRows(referenceHidden(model, referenceIds(model, text, maxLength))));
}
function expectedCls(text: string): number[] {
  return l2Normalize(referenceHidden(model, referenceIds(model, text))[0] ?? []);
}

function assertClose(
  t: import("ava").ExecutionContext,
  actual: Float32Array | undefined,
  expected: number[],
  what = "",
) {
  t.truthy(actual, what);
  t.is(actual?.length, expected.length, what);
  const worst = expected.reduce(
    (max, value, i) => Math.max(max, Math.abs(value - (actual?.[i] ?? Number.NaN))),
    0,
  );
  t.true(worst < 1e-5, `${what} differs by ${worst}`);
}

test("last_hidden_state + mean pooling over a padded batch equals the TypeScript computation", async (t) => {
  const embedder = await createOnnxEmbedder({
    modelDir: await modelDir({ output: "last_hidden_state" }, { pooling: "mean" }),
  });
  const vectors = await embedder.embed(TEXTS, "passage");
  t.is(vectors.length, TEXTS.length);
  TEXTS.forEach((text, i) => {
    assertClose(t, vectors[i], expectedMean(text), text);
  });
  await embedder.close?.();
});

test("CLS pooling from 1_Pooling/config.json takes the first token's state", async (t) => {
  const embedder = await createOnnxEmbedder({
    modelDir: await modelDir({ output: "last_hidden_state" }, { pooling: "cls" }),
  });
  const vectors = await embedder.embed(TEXTS, "passage");
  TEXTS.forEach((text, i) => {
    assertClose(t, vectors[i], expectedCls(text), text);
  });
  t.notDeepEqual(vectors[0], vectors[1]);
  await embedder.close?.();
});

test("the pooling option overrides the export's configuration", async (t) => {
  const embedder = await createOnnxEmbedder({
    modelDir: await modelDir({ output: "last_hidden_state" }, { pooling: "mean" }),
    pooling: "cls",
  });
  assertClose(t, (await embedder.embed([TEXTS[0] ?? ""], "passage"))[0], expectedCls(TEXTS[0] ?? ""));
  await embedder.close?.();
});

test("a pooled sentence_embedding output is used as is (with declared token_type_ids fed as zeros)", async (t) => {
  const dir = await modelDir({ output: "sentence_embedding", tokenTypeIds: true }, { nested: true });
  const embedder = await createOnnxEmbedder({ modelDir: dir });
  const vectors = await embedder.embed(TEXTS, "passage");
  TEXTS.forEach((text, i) => {
    const ids = referenceIds(model, text);
    const expected = l2Normalize(
      meanRows(
        referenceHidden(
          model,
          ids,
          ids.map(() => 0),
        ),
      ),
    );
    assertClose(t, vectors[i], expected, text);
  });
  await embedder.close?.();
});

test("embedding texts together or one by one gives the same vectors (padding never leaks)", async (t) => {
  const embedder = await createOnnxEmbedder({
    modelDir: await modelDir({ output: "last_hidden_state" }),
    batchSize: 2,
  });
  const together = await embedder.embed(TEXTS, "passage");
  for (const [i, text] of TEXTS.entries()) {
    const [alone] = await embedder.embed([text], "passage");
    assertClose(t, alone, Array.from(together[i] ?? []), text);
  }
  await embedder.close?.();
});

test("inputs longer than max_seq_length are truncated, keeping [SEP] last", async (t) => {
  const dir = await modelDir({ output: "last_hidden_state" }, { maxSeqLength: 6 });
  const embedder = await createOnnxEmbedder({ modelDir: dir });
  const long = "die katze schläft auf dem sofa und der hund bellt im garten";
  const [truncated, short] = await embedder.embed([long, "rain"], "passage");
  const ids = referenceIds(model, long, 6);
  t.is(ids.length, 6);
  assertClose(t, truncated, l2Normalize(meanRows(referenceHidden(model, ids))));
  assertClose(t, short, expectedMean("rain"));
  t.is(embedder.tokenizer.countTokens(long), 12, "the tokenizer counts the whole text");
  await embedder.close?.();
});

test("query and passage prefixes come from the export's prompts, options override them", async (t) => {
  const dir = await modelDir(
    { output: "last_hidden_state" },
    { prompts: { query: "query: ", passage: "passage: " } },
  );
  const fromConfig = await createOnnxEmbedder({ modelDir: dir });
  const [query] = await fromConfig.embed(["the cat"], "query");
  const [passage] = await fromConfig.embed(["the cat"], "passage");
  assertClose(t, query, expectedMean("query: the cat"));
  assertClose(t, passage, expectedMean("passage: the cat"));
  const overridden = await createOnnxEmbedder({ modelDir: dir, queryPrefix: "", passagePrefix: "passage: " });
  assertClose(t, (await overridden.embed(["the cat"], "query"))[0], expectedMean("the cat"));
  await fromConfig.close?.();
  await overridden.close?.();
});

test("a bare export (no sentence-transformers files) defaults to mean pooling", async (t) => {
  const dir = await modelDir({ output: "last_hidden_state" }, { bare: true, nested: true });
  const embedder = await createOnnxEmbedder({ modelDir: dir });
  assertClose(t, (await embedder.embed([TEXTS[2] ?? ""], "passage"))[0], expectedMean(TEXTS[2] ?? ""));
  await embedder.close?.();
});

test("id names the space after the directory and dimension; vectors are unit length", async (t) => {
  const dir = await modelDir({ output: "last_hidden_state" });
  const embedder = await createOnnxEmbedder({ modelDir: dir });
  t.is(embedder.id, `onnx:${basename(dir)}:8`);
  t.is(embedder.dim, 8);
  for (const vector of await embedder.embed(TEXTS, "query")) {
    t.true(vector instanceof Float32Array);
    t.true(Math.abs(Math.hypot(...vector) - 1) < 1e-5);
  }
  t.deepEqual(await embedder.embed([], "query"), []);
  await embedder.close?.();
});

test("the tokenizer counts model tokens without special tokens, subwords included", async (t) => {
  const embedder = await createOnnxEmbedder({ modelDir: await modelDir({ output: "last_hidden_state" }) });
  t.is(embedder.tokenizer.countTokens("Datenschutzbeauftragter"), 3); // daten ##schutz ##beauftragter
  t.is(embedder.tokenizer.countTokens("Die Katze."), 3);
  t.is(embedder.tokenizer.countTokens(""), 0);
  await embedder.close?.();
});

test("a directory without a model is refused with a ProviderError naming what is missing", async (t) => {
  const error = await t.throwsAsync(createOnnxEmbedder({ modelDir: join(scratch, "does-not-exist") }), {
    instanceOf: ProviderError,
  });
  t.is(error?.reason, "model_invalid");
  t.regex(error?.message ?? "", /model\.onnx/);
});

test("a closed embedder refuses work", async (t) => {
  const embedder = await createOnnxEmbedder({ modelDir: await modelDir({ output: "last_hidden_state" }) });
  await embedder.close?.();
  const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "closed");
});

test("throughput on the test-built model (logged)", async (t) => {
  const big = createTinyModel(64, 11);
  const dir = join(scratch, "throughput");
  await writeModelDir(dir, big, buildEmbeddingModel(big, { output: "last_hidden_state" }));
  const embedder = await createOnnxEmbedder({ modelDir: dir, batchSize: 32 });
  const sentence = "die katze schläft auf dem sofa und der hund bellt im garten ".repeat(8);
  const texts = Array.from({ length: 512 }, (_, i) => `${sentence} ${i}`);
  await embedder.embed(texts.slice(0, 32), "passage");
  const started = performance.now();
  const vectors = await embedder.embed(texts, "passage");
  const seconds = (performance.now() - started) / 1000;
  t.is(vectors.length, texts.length);
  t.log(
    `${texts.length} texts × ${embedder.tokenizer.countTokens(texts[0] ?? "")} tokens in ${(seconds * 1000).toFixed(0)} ms = ${(texts.length / seconds).toFixed(0)} texts/s (tokenising, padding, a 64-d graph, pooling)`,
  );
  await embedder.close?.();
});
