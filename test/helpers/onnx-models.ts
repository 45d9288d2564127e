import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { onnxValueInfo } from "../../core/models/sentence-encoder/build-use-lite-graph.js";

/**
 * Tiny ONNX models written by the tests themselves (no pretrained weights can reach this machine, see
 * shared/models/README.md), plus the files a sentence-transformers export carries next to them. The
 * weights are seeded pseudo-random numbers; `TinyModel` keeps them so tests can compute the expected
 * outputs in plain TypeScript.
 */

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

export const SPECIAL_TOKENS = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"] as const;
export const PAD_ID = 0;
export const CLS_ID = 1;
export const SEP_ID = 2;
export const UNK_ID = 3;

/** Whole words (lower case, as the BERT normaliser lowercases), WordPiece continuations and punctuation. */
export const WORDS = [
  "query",
  "passage",
  "die",
  "katze",
  "schläft",
  "auf",
  "dem",
  "sofa",
  "der",
  "hund",
  "bellt",
  "im",
  "garten",
  "the",
  "cat",
  "sleeps",
  "on",
  "dog",
  "barks",
  "in",
  "garden",
  "daten",
  "schutz",
  "rechnung",
  "steuer",
  "invoice",
  "tax",
  "weather",
  "sunny",
  "rain",
  "wetter",
  "heute",
  "today",
  "is",
  "ist",
  "a",
  "ein",
  "eine",
  "und",
  "and",
  ".",
  ",",
  ":",
  "!",
  "?",
  "##schutz",
  "##beauftragter",
  "##s",
  "##n",
  "##en",
] as const;

export interface TinyModel {
  readonly vocab: ReadonlyMap<string, number>;
  readonly hidden: number;
  /** Token embedding table, [vocab, hidden]. */
  readonly embeddings: Float32Array;
  /** Token type embedding table, [2, hidden]; used only by models that declare token_type_ids. */
  readonly typeEmbeddings: Float32Array;
  /** Context mixing matrix, [hidden, hidden]. */
  readonly mix: Float32Array;
  /** Cross-encoder head: [hidden] weights and one bias. */
  readonly head: Float32Array;
  readonly bias: number;
}

export function createTinyModel(hidden = 8, seed = 7): TinyModel {
  const vocab = new Map<string, number>();
  for (const token of [...SPECIAL_TOKENS, ...WORDS]) if (!vocab.has(token)) vocab.set(token, vocab.size);
  const random = mulberry32(seed);
  const table = (length: number) => Float32Array.from({ length }, () => random() * 2 - 1);
  return {
    vocab,
    hidden,
    embeddings: table(vocab.size * hidden),
    typeEmbeddings: table(2 * hidden),
    mix: Float32Array.from({ length: hidden * hidden }, () => (random() * 2 - 1) * 0.5),
    head: table(hidden),
    bias: 0.1,
  };
}

/** A WordPiece tokenizer.json with the BERT normaliser, pre-tokeniser and [CLS] … [SEP] template. */
export function tokenizerJson(model: TinyModel): Record<string, unknown> {
  const special = (content: string) => ({
    id: model.vocab.get(content),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const token = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });
  const sequence = (id: "A" | "B", typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: false,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [token("[CLS]", 0), sequence("A", 0), token("[SEP]", 0)],
      pair: [token("[CLS]", 0), sequence("A", 0), token("[SEP]", 0), sequence("B", 1), token("[SEP]", 1)],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [CLS_ID], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [SEP_ID], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(model.vocab),
    },
  };
}

export type EmbeddingOutput = "last_hidden_state" | "sentence_embedding";

export interface EmbeddingModelSpec {
  readonly output: EmbeddingOutput;
  /** Declare (and use) a token_type_ids input, as BERT exports do; XLM-R exports (bge-m3, e5) do not. */
  readonly tokenTypeIds?: boolean;
}

/**
 * hidden[t] = E[id_t] (+ T[type_t]) + mix · (masked mean over the sequence of the same) — contextual, so
 * CLS pooling differs between texts and a wrong attention mask changes every output. The
 * "sentence_embedding" variant also pools (masked mean) and L2-normalises inside the graph.
 */
export function buildEmbeddingModel(model: TinyModel, spec: EmbeddingModelSpec): Uint8Array {
  const g = graphBuilder();
  const inputs = [g.input("input_ids", INT64), g.input("attention_mask", INT64)];
  if (spec.tokenTypeIds === true) inputs.push(g.input("token_type_ids", INT64));
  const states = tokenStates(g, model, spec.tokenTypeIds === true);
  g.node("Unsqueeze", ["mask_float", "axes_2"], ["mask_3d"]);
  g.node("Mul", [states, "mask_3d"], ["masked"]);
  g.node("ReduceSum", ["masked", "axes_1"], ["sum_keep"], { keepdims: 1 });
  g.node("ReduceSum", ["mask_3d", "axes_1"], ["count_keep"], { keepdims: 1 });
  g.node("Div", ["sum_keep", "count_keep"], ["context_mean"]);
  g.node("MatMul", ["context_mean", "mix"], ["context"]);
  g.node("Add", [states, "context"], ["hidden"]);
  g.float("mix", [model.hidden, model.hidden], model.mix);

  const outputs = [];
  if (spec.output === "last_hidden_state") {
    g.node("Identity", ["hidden"], ["last_hidden_state"]);
    outputs.push(g.output("last_hidden_state", ["batch", "sequence", model.hidden]));
  } else {
    g.node("Identity", ["hidden"], ["token_embeddings"]);
    g.node("Mul", ["hidden", "mask_3d"], ["hidden_masked"]);
    g.node("ReduceSum", ["hidden_masked", "axes_1"], ["hidden_sum"], { keepdims: 0 });
    g.node("ReduceSum", ["mask_3d", "axes_1"], ["hidden_count"], { keepdims: 0 });
    g.node("Div", ["hidden_sum", "hidden_count"], ["pooled"]);
    g.node("Mul", ["pooled", "pooled"], ["squares"]);
    g.node("ReduceSum", ["squares", "axes_1"], ["square_sum"], { keepdims: 1 });
    g.node("Sqrt", ["square_sum"], ["norm"]);
    g.node("Div", ["pooled", "norm"], ["sentence_embedding"]);
    outputs.push(g.output("token_embeddings", ["batch", "sequence", model.hidden]));
    outputs.push(g.output("sentence_embedding", ["batch", model.hidden]));
  }
  return g.encode("tiny-embedder", inputs, outputs);
}

/** Cross-encoder: masked mean of (E[id] + T[type]) → linear head → logits [batch, 1]. */
export function buildCrossEncoderModel(model: TinyModel, spec: { tokenTypeIds?: boolean } = {}): Uint8Array {
  const g = graphBuilder();
  const inputs = [g.input("input_ids", INT64), g.input("attention_mask", INT64)];
  if (spec.tokenTypeIds === true) inputs.push(g.input("token_type_ids", INT64));
  const states = tokenStates(g, model, spec.tokenTypeIds === true);
  g.node("Unsqueeze", ["mask_float", "axes_2"], ["mask_3d"]);
  g.node("Mul", [states, "mask_3d"], ["masked"]);
  g.node("ReduceSum", ["masked", "axes_1"], ["sum"], { keepdims: 0 });
  g.node("ReduceSum", ["mask_3d", "axes_1"], ["count"], { keepdims: 0 });
  g.node("Div", ["sum", "count"], ["pooled"]);
  g.node("MatMul", ["pooled", "head"], ["projected"]);
  g.node("Add", ["projected", "bias"], ["logits"]);
  g.float("head", [model.hidden, 1], model.head);
  g.float("bias", [1], Float32Array.of(model.bias));
  return g.encode("tiny-cross-encoder", inputs, [g.output("logits", ["batch", 1])]);
}

function tokenStates(g: GraphBuilder, model: TinyModel, withTypes: boolean): string {
  g.float("embeddings", [model.vocab.size, model.hidden], model.embeddings);
  g.int64("axes_1", [1], [1]);
  g.int64("axes_2", [1], [2]);
  g.node("Gather", ["embeddings", "input_ids"], ["token_states"], { axis: 0 });
  g.node("Cast", ["attention_mask"], ["mask_float"], { to: FLOAT });
  if (!withTypes) return "token_states";
  g.float("type_embeddings", [2, model.hidden], model.typeEmbeddings);
  g.node("Gather", ["type_embeddings", "token_type_ids"], ["type_states"], { axis: 0 });
  g.node("Add", ["token_states", "type_states"], ["typed_states"]);
  return "typed_states";
}

export interface ModelDirSpec {
  readonly pooling?: "mean" | "cls";
  readonly maxSeqLength?: number;
  /** Put the graph at onnx/model.onnx, as the Hugging Face ONNX exports do. */
  readonly nested?: boolean;
  readonly prompts?: { readonly query: string; readonly passage: string };
  /** Omit the sentence-transformers files (defaults must apply). */
  readonly bare?: boolean;
}

/** Writes a sentence-transformers-style export: tokenizer.json, model.onnx, pooling and length configs. */
export async function writeModelDir(
  dir: string,
  model: TinyModel,
  graph: Uint8Array,
  spec: ModelDirSpec = {},
) {
  await mkdir(join(dir, "onnx"), { recursive: true });
  await writeFile(join(dir, spec.nested === true ? "onnx/model.onnx" : "model.onnx"), graph);
  await writeFile(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson(model)));
  await writeFile(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({ pad_token: "[PAD]", model_max_length: 512 }),
  );
  if (spec.bare === true) return;
  await mkdir(join(dir, "1_Pooling"), { recursive: true });
  await writeFile(
    join(dir, "1_Pooling", "config.json"),
    JSON.stringify({
      word_embedding_dimension: model.hidden,
      pooling_mode_cls_token: spec.pooling === "cls",
      pooling_mode_mean_tokens: spec.pooling !== "cls",
      pooling_mode_max_tokens: false,
      pooling_mode_mean_sqrt_len_tokens: false,
    }),
  );
  await writeFile(
    join(dir, "sentence_bert_config.json"),
    JSON.stringify({ max_seq_length: spec.maxSeqLength ?? 512, do_lower_case: false }),
  );
  if (spec.prompts !== undefined) {
    await writeFile(
      join(dir, "config_sentence_transformers.json"),
      JSON.stringify({ prompts: spec.prompts }),
    );
  }
}

// ---- The same computations in TypeScript, for the expected values ----

/** Ids the tiny tokenizer produces for text made of whole vocabulary words: [CLS] words… [SEP], truncated. */
export function referenceIds(model: TinyModel, text: string, maxLength = 512): number[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [];
  const ids = words.map((word) => model.vocab.get(word) ?? UNK_ID).slice(0, maxLength - 2);
  return [CLS_ID, ...ids, SEP_ID];
}

/** Token states of one unpadded sequence, exactly as the graph computes them. */
export function referenceStates(
  model: TinyModel,
  ids: readonly number[],
  typeIds?: readonly number[],
): number[][] {
  const h = model.hidden;
  const states = ids.map((id, t) => {
    const row = Array.from({ length: h }, (_, j) => model.embeddings[id * h + j] ?? Number.NaN);
    const type = typeIds?.[t];
    if (type !== undefined)
      for (let j = 0; j < h; j++) row[j] = (row[j] ?? 0) + (model.typeEmbeddings[type * h + j] ?? 0);
    return row;
  });
  return states;
}

export function referenceHidden(
  model: TinyModel,
  ids: readonly number[],
  typeIds?: readonly number[],
): number[][] {
  const states = referenceStates(model, ids, typeIds);
  const mean = meanRows(states);
  const h = model.hidden;
  const context = Array.from({ length: h }, (_, j) => {
    let sum = 0;
    for (let i = 0; i < h; i++) sum += (mean[i] ?? 0) * (model.mix[i * h + j] ?? 0);
    return sum;
  });
  return states.map((row) => row.map((value, j) => value + (context[j] ?? 0)));
}

export function referenceCrossEncoderLogit(
  model: TinyModel,
  ids: readonly number[],
  typeIds?: readonly number[],
) {
  const pooled = meanRows(referenceStates(model, ids, typeIds));
  return pooled.reduce((sum, value, j) => sum + value * (model.head[j] ?? 0), model.bias);
}

export function meanRows(rows: readonly (readonly number[])[]): number[] {
  const width = rows[0]?.length ?? 0;
  const mean = new Array<number>(width).fill(0);
  for (const row of rows)
    for (let j = 0; j < width; j++) mean[j] = (mean[j] ?? 0) + (row[j] ?? 0) / rows.length;
  return mean;
}

export function l2Normalize(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

// ---- A minimal ONNX graph writer over onnx-proto ----

type Attribute = number;

interface GraphBuilder {
  input(name: string, elemType: number): onnxProto.onnx.IValueInfoProto;
  output(name: string, dims: readonly (number | string)[]): onnxProto.onnx.IValueInfoProto;
  float(name: string, dims: readonly number[], values: Float32Array): void;
  int64(name: string, dims: readonly number[], values: readonly number[]): void;
  node(
    op: string,
    inputs: readonly string[],
    outputs: readonly string[],
    attributes?: Record<string, Attribute>,
  ): void;
  encode(
    name: string,
    inputs: onnxProto.onnx.IValueInfoProto[],
    outputs: onnxProto.onnx.IValueInfoProto[],
  ): Uint8Array;
}

function graphBuilder(): GraphBuilder {
  const nodes: onnxProto.onnx.INodeProto[] = [];
  const initializers: onnxProto.onnx.ITensorProto[] = [];
  const valueInfo = onnxValueInfo;
  return {
    input: (name, elemType) => valueInfo(name, elemType, ["batch", "sequence"]),
    output: (name, dims) => valueInfo(name, FLOAT, dims),
    float(name, dims, values) {
      const rawData = new Uint8Array(
        values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength),
      );
      initializers.push({ name, dims: [...dims], dataType: FLOAT, rawData });
    },
    int64(name, dims, values) {
      const data = BigInt64Array.from(values.map((v) => BigInt(v)));
      initializers.push({ name, dims: [...dims], dataType: INT64, rawData: new Uint8Array(data.buffer) });
    },
    node(op, inputs, outputs, attributes = {}) {
      nodes.push({
        opType: op,
        name: `${op}_${nodes.length}`,
        input: [...inputs],
        output: [...outputs],
        attribute: Object.entries(attributes).map(([name, i]) => ({
          name,
          i,
          type: onnx.AttributeProto.AttributeType.INT,
        })),
      });
    },
    encode(name, inputs, outputs) {
      const proto = onnx.ModelProto.create({
        irVersion: 8,
        producerName: "memory-service-tests",
        opsetImport: [{ domain: "", version: 13 }],
        graph: { name, node: nodes, initializer: initializers, input: inputs, output: outputs },
      });
      return onnx.ModelProto.encode(proto).finish();
    },
  };
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
