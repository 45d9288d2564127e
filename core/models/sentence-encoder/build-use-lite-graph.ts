import onnxProto from "onnx-proto";
import type { UseLiteWeights } from "./read-use-lite-weights.js";
import { USE_LITE_DIMENSIONS, USE_LITE_MAX_TOKENS } from "./use-lite-shape.js";

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const { AttributeType } = onnx.AttributeProto;

type Attribute = { readonly int: number } | { readonly ints: readonly number[] } | { readonly float: number };

/** An ONNX graph input or output: its element type and dimensions (a name for a variable one). */
export const onnxValueInfo = (name: string, elemType: number, dims: readonly (number | string)[]) => ({
  name,
  type: {
    tensorType: {
      elemType,
      shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
    },
  },
});

/**
 * The Universal Sentence Encoder lite (a two-layer pre-norm Transformer over SentencePiece ids: 256
 * wide, then 512, four heads; the mean of its outputs through a tanh layer, L2-normalised) written as
 * an ONNX graph for onnxruntime from the TensorFlow.js weights — the same computation as the
 * TensorFlow graph (its sparse inputs become a padded batch with a mask), an order of magnitude
 * faster than TensorFlow.js's WebAssembly backend. Inputs: `ids` int64 [batch, tokens], `mask` float
 * [batch, tokens] (1 for a token, 0 for padding); output `embedding` [batch, 512].
 */
export function buildUseLiteGraph(weights: UseLiteWeights): Uint8Array {
  const nodes: onnxProto.onnx.INodeProto[] = [];
  const initializers: onnxProto.onnx.ITensorProto[] = [];
  const tensor = (name: string) => {
    const t = weights.tensors.get(name);
    if (t === undefined) throw new Error(`USE lite weights lack ${name}`);
    return t;
  };
  const float = (name: string, dims: readonly number[], data: Float32Array) => {
    initializers.push({
      name,
      dims: [...dims],
      dataType: FLOAT,
      rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
    return name;
  };
  const weight = (name: string, dims?: readonly number[]) => {
    const t = tensor(name);
    return float(name, dims ?? t.shape, t.data);
  };
  const int64 = (name: string, values: readonly number[], scalar = false) => {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    initializers.push({
      name,
      dims: scalar ? [] : [values.length],
      dataType: INT64,
      rawData: new Uint8Array(data.buffer),
    });
    return name;
  };
  let counter = 0;
  const op = (type: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}) => {
    const output = `${type}_${counter++}`;
    nodes.push({
      opType: type,
      name: output,
      input: [...inputs],
      output: [output],
      attribute: Object.entries(attributes).map(([name, a]) =>
        "int" in a
          ? { name, i: a.int, type: AttributeType.INT }
          : "ints" in a
            ? { name, ints: [...a.ints], type: AttributeType.INTS }
            : { name, f: a.float, type: AttributeType.FLOAT },
      ),
    });
    return output;
  };
  const linear = (x: string, kernel: string, bias: string, rows: number, cols: number) =>
    op("Add", [op("MatMul", [x, weight(kernel, [rows, cols])]), weight(bias)]);
  const layerNorm = (x: string, prefix: string) =>
    op("LayerNormalization", [x, weight(`${prefix}/layer_norm_scale`), weight(`${prefix}/layer_norm_bias`)], {
      axis: { int: -1 },
      epsilon: { float: 1e-6 },
    });

  // Sinusoidal positions, sin then cos, as tensor2tensor's timing signal (its inverse timescales are
  // among the weights).
  const inverse = tensor("Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1").data;
  const channels = inverse.length;
  const timing = new Float32Array(USE_LITE_MAX_TOKENS * 2 * channels);
  for (let p = 0; p < USE_LITE_MAX_TOKENS; p++) {
    for (let j = 0; j < channels; j++) {
      const angle = Math.fround(p * (inverse[j] ?? 0));
      timing[p * 2 * channels + j] = Math.sin(angle);
      timing[p * 2 * channels + channels + j] = Math.cos(angle);
    }
  }
  const tokens = op("Unsqueeze", [
    op("Gather", [op("Shape", ["ids"]), int64("one", [1], true)]),
    int64("axis0", [0]),
  ]);
  const positions = op("Slice", [
    float("timing", [USE_LITE_MAX_TOKENS, 2 * channels], timing),
    int64("zero", [0]),
    tokens,
    int64("axes0", [0]),
  ]);
  // The TensorFlow graph adds the embeddings to the timing layer's own output (embeddings + timing):
  // twice the embedding, once the timing signal.
  const embedded = op("Gather", [weight("Embeddings_en"), "ids"]);
  let x = op("Add", [op("Add", [embedded, embedded]), positions]);
  // −1e9 on padded keys, broadcast over heads and queries.
  const maskBias = op("Unsqueeze", [
    op("Mul", [
      op("Sub", [float("ones", [], Float32Array.of(1)), "mask"]),
      float("minusInf", [], Float32Array.of(-1e9)),
    ]),
    int64("axes12", [1, 2]),
  ]);

  const layer = (index: number, width: number, model: number) => {
    const prefix = `Layer_${index}/TransformerLayer`;
    const heads = 4;
    const headWidth = width / heads;
    const h = layerNorm(x, `${prefix}/layer_prepostprocess/layer_norm`);
    const qkv = linear(
      h,
      `${prefix}/MultiheadAttention/qkv_transform_single/kernel`,
      `${prefix}/MultiheadAttention/qkv_transform_single/bias`,
      width,
      3 * width,
    );
    const split = `${qkv}_split`;
    nodes.push({
      opType: "Split",
      name: split,
      input: [qkv, int64(`split${index}`, [width, width, width])],
      output: [`${split}_q`, `${split}_k`, `${split}_v`],
      attribute: [{ name: "axis", i: 2, type: AttributeType.INT }],
    });
    const shape = int64(`heads${index}`, [0, 0, heads, headWidth]);
    const perHead = (t: string, perm: readonly number[]) =>
      op("Transpose", [op("Reshape", [t, shape])], { perm: { ints: perm } });
    const q = op("Mul", [
      perHead(`${split}_q`, [0, 2, 1, 3]),
      weight(`${prefix}/MultiheadAttention/mul/y`, []),
    ]);
    const k = perHead(`${split}_k`, [0, 2, 3, 1]);
    const v = perHead(`${split}_v`, [0, 2, 1, 3]);
    const attention = op("Softmax", [op("Add", [op("MatMul", [q, k]), maskBias])], { axis: { int: -1 } });
    const context = op("Reshape", [
      op("Transpose", [op("MatMul", [attention, v])], { perm: { ints: [0, 2, 1, 3] } }),
      int64(`merge${index}`, [0, 0, width]),
    ]);
    const out = linear(
      context,
      `${prefix}/MultiheadAttention/output_transform_single/kernel`,
      `${prefix}/MultiheadAttention/output_transform_single/bias`,
      width,
      model,
    );
    // The first layer widens 256 → 512: its residual goes through a dense layer.
    const residual =
      width === model ? x : linear(x, `${prefix}/dense/kernel`, `${prefix}/dense/bias`, width, model);
    const attended = op("Add", [out, residual]);
    const f = layerNorm(attended, `${prefix}/FFN/layer_prepostprocess/layer_norm`);
    const hidden = op("Relu", [
      linear(f, `${prefix}/FFN/conv1/Tensordot/Reshape_1`, `${prefix}/FFN/conv1/bias`, model, 3 * model),
    ]);
    const ffn = linear(
      hidden,
      `${prefix}/FFN/conv2/Tensordot/Reshape_1`,
      `${prefix}/FFN/conv2/bias`,
      3 * model,
      model,
    );
    x = op("Add", [ffn, attended]);
  };
  layer(0, channels * 2, USE_LITE_DIMENSIONS);
  layer(1, USE_LITE_DIMENSIONS, USE_LITE_DIMENSIONS);

  // Mean over the tokens, a tanh layer, L2 norm.
  const masked = op("Mul", [x, op("Unsqueeze", ["mask", int64("axis2", [2])])]);
  const sum = op("ReduceSum", [masked, int64("axes1", [1])], { keepdims: { int: 0 } });
  const count = op("Max", [op("ReduceSum", ["mask", "axes1"], { keepdims: { int: 1 } }), "ones"]);
  const pooled = op("Tanh", [
    linear(
      op("Div", [sum, count]),
      "hidden_layers/tanh_layer_0/weights",
      "hidden_layers/tanh_layer_0/bias",
      USE_LITE_DIMENSIONS,
      USE_LITE_DIMENSIONS,
    ),
  ]);
  const embedding = op("LpNormalization", [pooled], { axis: { int: -1 }, p: { int: 2 } });
  nodes.push({ opType: "Identity", name: "output", input: [embedding], output: ["embedding"] });

  const proto = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "memory-service",
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "use-lite",
      node: nodes,
      initializer: initializers,
      input: [
        onnxValueInfo("ids", INT64, ["batch", "tokens"]),
        onnxValueInfo("mask", FLOAT, ["batch", "tokens"]),
      ],
      output: [onnxValueInfo("embedding", FLOAT, ["batch", USE_LITE_DIMENSIONS])],
    },
  });
  return onnx.ModelProto.encode(proto).finish();
}
