import { basename, resolve } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { EmbeddingProvider, EmbedPurpose } from "../embedding-provider.js";
import { l2NormalizeInPlace } from "../l2-normalize.js";
import { ProviderError } from "../provider-error.js";
import { batchByLength } from "./batch-by-length.js";
import { type EncodedInput, loadModelTokenizer } from "./load-model-tokenizer.js";
import { type FloatOutput, openOnnxSession } from "./open-onnx-session.js";
import { poolTokenStates } from "./pool-token-states.js";
import { type Pooling, readModelDir } from "./read-model-dir.js";

export interface OnnxEmbedderOptions {
  /** A sentence-transformers-style export: tokenizer.json and model.onnx (or onnx/model.onnx). */
  readonly modelDir: string;
  /** Graph file relative to modelDir, e.g. "onnx/model_quantized.onnx"; default: the first that exists. */
  readonly modelFile?: string;
  /** Overrides 1_Pooling/config.json (bge-m3: cls, multilingual-e5: mean). */
  readonly pooling?: Pooling;
  /** Overrides sentence_bert_config.json's max_seq_length; longer inputs are truncated. */
  readonly maxLength?: number;
  /** Prepended to queries / passages (e5: "query: " / "passage: "); default: the export's declared prompts. */
  readonly queryPrefix?: string;
  readonly passagePrefix?: string;
  /** Graph output to read; default sentence_embedding, else last_hidden_state / token_embeddings. */
  readonly outputName?: string;
  /** Texts per inference call (default 16). */
  readonly batchSize?: number;
  /** ONNX Runtime intra-op threads (default: all cores). Use 1 per worker inside a worker pool. */
  readonly threads?: number;
  /** Embedding space name; default `onnx:<directory name>:<dimension>`. */
  readonly id?: string;
}

const PREFERRED_OUTPUTS = ["sentence_embedding", "last_hidden_state", "token_embeddings"];

/**
 * Local embeddings with onnxruntime-node. Note: a run occupies the calling thread for its whole duration
 * (onnxruntime-node does not release the event loop while it computes), so batches run one after another
 * with a turn of the event loop between them; to keep a server responsive, run this provider inside
 * `createPooledEmbedder`.
 */
export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<EmbeddingProvider> {
  const name = basename(resolve(options.modelDir));
  const provider = `onnx:${name}`;
  const info = await readModelDir(options.modelDir, options.modelFile, provider);
  const tokenizer = await loadModelTokenizer(options.modelDir, provider);
  const session = await openOnnxSession(info.modelPath, { threads: options.threads, provider });
  const output = chooseOutput(session.outputNames, options.outputName, provider);
  const pooling = options.pooling ?? info.pooling;
  const maxLength = options.maxLength ?? info.maxLength;
  const batchSize = options.batchSize ?? 16;
  const prefixes: Record<EmbedPurpose, string> = {
    query: options.queryPrefix ?? info.queryPrompt ?? "",
    passage: options.passagePrefix ?? info.passagePrompt ?? "",
  };
  let closed = false;

  const vectorsOf = (result: FloatOutput | undefined, batch: readonly EncodedInput[]): Float32Array[] => {
    if (result === undefined) {
      throw new ProviderError(`the model produced no float output "${output}"`, {
        reason: "inference_failed",
        provider,
      });
    }
    if (result.dims.length === 2) {
      const width = result.dims[1] ?? 0;
      return batch.map((_, b) => result.data.slice(b * width, (b + 1) * width));
    }
    return poolTokenStates(
      result.data,
      result.dims,
      batch.map((input) => input.ids.length),
      pooling,
    );
  };

  const embed = async (texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    if (closed) throw new ProviderError("the embedder is closed", { reason: "closed", provider });
    const inputs = texts.map((text) => tokenizer.encode(prefixes[purpose] + text, maxLength));
    const vectors = new Array<Float32Array>(texts.length);
    for (const indices of batchByLength(
      inputs.map((input) => input.ids.length),
      batchSize,
    )) {
      const batch = indices.map((i) => inputs[i] as EncodedInput);
      const outputs = await session.run(batch, tokenizer.padId);
      vectorsOf(outputs[output], batch).forEach((vector, b) => {
        vectors[indices[b] as number] = l2NormalizeInPlace(vector);
      });
      await nextTurn();
    }
    return vectors;
  };

  // One tiny run up front: proves the graph works with this tokenizer and tells the dimension.
  const [probe] = await embed(["dimension probe"], "passage");
  const dim = probe?.length ?? 0;
  if (dim === 0)
    throw new ProviderError("the model returned an empty vector", { reason: "model_invalid", provider });

  return {
    id: options.id ?? `onnx:${name}:${dim}`,
    dim,
    tokenizer: { countTokens: (text) => tokenizer.countTokens(text) },
    embed,
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

function chooseOutput(
  outputNames: readonly string[],
  requested: string | undefined,
  provider: string,
): string {
  if (requested !== undefined) {
    if (outputNames.includes(requested)) return requested;
    throw new ProviderError(`the model has no output "${requested}" (it has ${outputNames.join(", ")})`, {
      reason: "model_invalid",
      provider,
    });
  }
  const chosen = PREFERRED_OUTPUTS.find((candidate) => outputNames.includes(candidate)) ?? outputNames[0];
  if (chosen === undefined)
    throw new ProviderError("the model has no outputs", { reason: "model_invalid", provider });
  return chosen;
}
