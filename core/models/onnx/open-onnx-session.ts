import type * as Ort from "onnxruntime-node";
import { ProviderError } from "../provider-error.js";
import type { EncodedInput } from "./load-model-tokenizer.js";

/** A float output of one run, whatever precision the graph produced it in. */
export interface FloatOutput {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

/** An ONNX graph that takes tokenised text: feeds are built from the inputs the graph declares. */
export interface OnnxSession {
  readonly outputNames: readonly string[];
  run(batch: readonly EncodedInput[], padId: number): Promise<Record<string, FloatOutput>>;
  release(): Promise<void>;
}

export interface OpenOnnxSessionOptions {
  /** Intra-op threads; ONNX Runtime's default uses every core. */
  readonly threads?: number | undefined;
  readonly provider: string;
}

type OrtModule = typeof Ort;

/**
 * onnxruntime-node is loaded with the first ONNX session, not at start: its native library added
 * ≈ 5 MB of RSS to the idle service (15 MB to a bare node), and most processes run the built-in models.
 */
let loadingOrt: Promise<OrtModule> | undefined;
const loadOrt = (): Promise<OrtModule> => {
  loadingOrt ??= import("onnxruntime-node");
  return loadingOrt;
};

type IdInput = "input_ids" | "attention_mask" | "token_type_ids";
const ID_INPUTS: ReadonlySet<string> = new Set<IdInput>(["input_ids", "attention_mask", "token_type_ids"]);

interface InputSpec {
  readonly name: IdInput;
  readonly type: "int64" | "int32";
}

export async function openOnnxSession(
  modelPath: string,
  options: OpenOnnxSessionOptions,
): Promise<OnnxSession> {
  const { provider } = options;
  const ort = await loadOrt();
  let session: Ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ["cpu"],
      graphOptimizationLevel: "all",
      ...(options.threads === undefined ? {} : { intraOpNumThreads: options.threads, interOpNumThreads: 1 }),
    });
  } catch (error) {
    throw new ProviderError(`cannot load ONNX model ${modelPath}: ${String(error)}`, {
      reason: "model_invalid",
      provider,
    });
  }
  const inputs = inputSpecs(session, provider);

  return {
    outputNames: session.outputNames,
    async run(batch, padId) {
      const feeds = buildFeeds(ort, inputs, batch, padId);
      let results: Ort.InferenceSession.ReturnType;
      try {
        results = await session.run(feeds);
      } catch (error) {
        throw new ProviderError(`ONNX inference failed: ${String(error)}`, {
          reason: "inference_failed",
          provider,
        });
      }
      const outputs: Record<string, FloatOutput> = {};
      for (const [name, value] of Object.entries(results)) {
        if (value instanceof ort.Tensor && (value.type === "float32" || value.type === "float16")) {
          outputs[name] = { data: toFloat32(value), dims: value.dims };
        }
      }
      return outputs;
    },
    release: () => session.release(),
  };
}

/**
 * Text models take some of input_ids, attention_mask and token_type_ids, as int64 or int32. BERT exports
 * declare token_type_ids, XLM-R exports (bge-m3, e5, bge-reranker) do not — feeding an undeclared input is
 * an error, so only declared inputs are fed.
 */
function inputSpecs(session: Ort.InferenceSession, provider: string): InputSpec[] {
  const specs: InputSpec[] = [];
  for (const meta of session.inputMetadata) {
    const type = meta.isTensor ? meta.type : undefined;
    if (!ID_INPUTS.has(meta.name) || (type !== "int64" && type !== "int32")) {
      throw new ProviderError(`unsupported model input "${meta.name}" (${type ?? "not a tensor"})`, {
        reason: "model_invalid",
        provider,
      });
    }
    specs.push({ name: meta.name as IdInput, type });
  }
  if (!specs.some((spec) => spec.name === "input_ids")) {
    throw new ProviderError("the model has no input_ids input", { reason: "model_invalid", provider });
  }
  return specs;
}

/** Right-padded [batch, longest] tensors; padding has attention 0. */
function buildFeeds(
  ort: OrtModule,
  inputs: readonly InputSpec[],
  batch: readonly EncodedInput[],
  padId: number,
) {
  const length = batch.reduce((max, input) => Math.max(max, input.ids.length), 0);
  const feeds: Record<string, Ort.Tensor> = {};
  for (const { name, type } of inputs) {
    const values = new Array<number>(batch.length * length);
    batch.forEach((input, b) => {
      for (let t = 0; t < length; t++) {
        const real = t < input.ids.length;
        const value = name === "input_ids" ? input.ids[t] : name === "attention_mask" ? 1 : input.typeIds[t];
        values[b * length + t] = real ? (value ?? 0) : name === "input_ids" ? padId : 0;
      }
    });
    const dims = [batch.length, length];
    feeds[name] =
      type === "int64"
        ? new ort.Tensor(
            "int64",
            BigInt64Array.from(values, (v) => BigInt(v)),
            dims,
          )
        : new ort.Tensor("int32", Int32Array.from(values), dims);
  }
  return feeds;
}

function toFloat32(tensor: Ort.Tensor): Float32Array {
  if (tensor.data instanceof Float32Array) return tensor.data;
  // float16 arrives as raw 16-bit words (Uint16Array) in Node 20.
  const halves = tensor.data as Uint16Array;
  const out = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) out[i] = halfToFloat(halves[i] as number);
  return out;
}

function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x03ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
