import type * as Ort from "onnxruntime-node";
import { readUseLiteWeights, useLiteDirectory } from "./read-use-lite-weights.js";
import { createSentencePieceTokenizer } from "./sentence-piece-tokenizer.js";
import { USE_LITE_DIMENSIONS, USE_LITE_MAX_TOKENS } from "./use-lite-shape.js";

/** An English sentence encoder: unit vectors whose dot product is the sentences' similarity. */
export interface SentenceEncoder {
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  release(): Promise<void>;
}

export const USE_LITE_ID = "use-lite-en-v1";
/** Texts per run: similar lengths together, so little of a batch is padding. */
const BATCH = 32;

/**
 * The Universal Sentence Encoder lite from the installed npm package, run by onnxruntime
 * (build-use-lite-graph.ts). Undefined when the package is not installed.
 */
export async function createUseLiteEncoder(
  options: { threads?: number } = {},
): Promise<SentenceEncoder | undefined> {
  const directory = useLiteDirectory();
  if (directory === undefined) return undefined;
  const weights = await readUseLiteWeights(directory);
  const tokenizer = createSentencePieceTokenizer(weights.vocabulary);
  // onnxruntime and the graph writer (protobufjs) load here, not with the service: most processes
  // never read an English query.
  const ort: typeof Ort = await import("onnxruntime-node");
  const { buildUseLiteGraph } = await import("./build-use-lite-graph.js");
  const session = await ort.InferenceSession.create(buildUseLiteGraph(weights), {
    executionProviders: ["cpu"],
    graphOptimizationLevel: "all",
    ...(options.threads === undefined ? {} : { intraOpNumThreads: options.threads, interOpNumThreads: 1 }),
  });
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    async embed(texts) {
      const encoded = texts.map((text) => tokenizer.encode(text, USE_LITE_MAX_TOKENS));
      const out: Float32Array[] = texts.map(() => new Float32Array(USE_LITE_DIMENSIONS));
      const order = encoded
        .map((ids, i) => ({ ids, i }))
        .filter((e) => e.ids.length > 0)
        .sort((a, b) => a.ids.length - b.ids.length);
      for (let start = 0; start < order.length; start += BATCH) {
        const batch = order.slice(start, start + BATCH);
        const width = batch.at(-1)?.ids.length ?? 1;
        const ids = new BigInt64Array(batch.length * width);
        const mask = new Float32Array(batch.length * width);
        batch.forEach((e, row) => {
          e.ids.forEach((id, col) => {
            ids[row * width + col] = BigInt(id);
            mask[row * width + col] = 1;
          });
        });
        const result = await session.run({
          ids: new ort.Tensor("int64", ids, [batch.length, width]),
          mask: new ort.Tensor("float32", mask, [batch.length, width]),
        });
        const data = result.embedding?.data as Float32Array;
        batch.forEach((e, row) => {
          out[e.i] = data.slice(row * USE_LITE_DIMENSIONS, (row + 1) * USE_LITE_DIMENSIONS);
        });
      }
      return out;
    },
    release: () => session.release(),
  };
}
