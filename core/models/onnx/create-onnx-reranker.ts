import { basename, resolve } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ProviderError } from "../provider-error.js";
import { rerankPassage } from "../rerank-passage.js";
import type { Reranker } from "../reranker.js";
import { batchByLength } from "./batch-by-length.js";
import { type EncodedInput, loadModelTokenizer } from "./load-model-tokenizer.js";
import { type FloatOutput, openOnnxSession } from "./open-onnx-session.js";
import { readModelDir } from "./read-model-dir.js";

export interface OnnxRerankerOptions {
  /** A cross-encoder export (e.g. bge-reranker-v2-m3): tokenizer.json and model.onnx (or onnx/model.onnx). */
  readonly modelDir: string;
  readonly modelFile?: string;
  /** Query + passage tokens per pair, special tokens included (default 512); the longer side is truncated. */
  readonly maxLength?: number;
  /** Pairs per inference call (default 16). */
  readonly batchSize?: number;
  /** ONNX Runtime intra-op threads (default: all cores). */
  readonly threads?: number;
  /** Default `onnx-rerank:<directory name>`. */
  readonly id?: string;
}

/**
 * Cross-encoder reranking: each (query, passage) pair is encoded together, the model's logit becomes a
 * relevance in (0, 1) — sigmoid for a single logit (bge-reranker), softmax of the "relevant" class for two.
 * Like the embedder, a run holds the calling thread; rerank only the top few dozen candidates.
 */
export async function createOnnxReranker(options: OnnxRerankerOptions): Promise<Reranker> {
  const name = basename(resolve(options.modelDir));
  const provider = `onnx-rerank:${name}`;
  const info = await readModelDir(options.modelDir, options.modelFile, provider);
  const tokenizer = await loadModelTokenizer(options.modelDir, provider);
  const session = await openOnnxSession(info.modelPath, { threads: options.threads, provider });
  const output = session.outputNames.includes("logits") ? "logits" : session.outputNames[0];
  if (output === undefined)
    throw new ProviderError("the model has no outputs", { reason: "model_invalid", provider });
  const maxLength = options.maxLength ?? info.maxLength;
  const batchSize = options.batchSize ?? 16;
  let closed = false;

  const scorePairs = async (query: string, passages: readonly string[]): Promise<number[]> => {
    if (closed) throw new ProviderError("the reranker is closed", { reason: "closed", provider });
    const inputs = passages.map((passage) => tokenizer.encodePair(query, passage, maxLength));
    const scores = new Array<number>(passages.length);
    for (const indices of batchByLength(
      inputs.map((input) => input.ids.length),
      batchSize,
    )) {
      const batch = indices.map((i) => inputs[i] as EncodedInput);
      const outputs = await session.run(batch, tokenizer.padId);
      relevances(outputs[output], batch.length, provider).forEach((score, b) => {
        scores[indices[b] as number] = score;
      });
      await nextTurn();
    }
    return scores;
  };

  await scorePairs("probe", ["probe"]);

  return {
    id: options.id ?? `onnx-rerank:${name}`,
    rerank: (query, candidates) => scorePairs(query, candidates.map(rerankPassage)),
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

function relevances(result: FloatOutput | undefined, batch: number, provider: string): number[] {
  const width = result === undefined || result.dims.length === 1 ? 1 : (result.dims[1] ?? 0);
  if (result === undefined || result.data.length !== batch * width || (width !== 1 && width !== 2)) {
    throw new ProviderError(`unexpected reranker output shape [${result?.dims.join(", ") ?? ""}]`, {
      reason: "inference_failed",
      provider,
    });
  }
  return Array.from({ length: batch }, (_, b) => {
    if (width === 1) return sigmoid(result.data[b] as number);
    // Two classes: probability of the second ("relevant") one.
    return sigmoid((result.data[b * 2 + 1] as number) - (result.data[b * 2] as number));
  });
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
