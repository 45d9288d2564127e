import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { createPooledEmbedder, type PooledEmbedderOptions } from "./create-pooled-embedder.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import { createHttpEmbedder, type HttpEmbedderOptions } from "./http/create-http-embedder.js";
import { createOnnxEmbedder, type OnnxEmbedderOptions } from "./onnx/create-onnx-embedder.js";
import { loadModelTokenizer } from "./onnx/load-model-tokenizer.js";

/**
 * Which embedding provider to run — built by the process's composition file from its configuration
 * (nothing here reads the environment).
 */
export type EmbeddingProviderConfig =
  | OnnxEmbeddingConfig
  | ({ readonly kind: "http" } & HttpEmbedderOptions)
  | {
      readonly kind: "builtin";
      /** The built-in embedder's factory, injected so this module does not depend on its internals. */
      readonly create: () => EmbeddingProvider | Promise<EmbeddingProvider>;
    }
  | ({ readonly kind: "pooled" } & PooledEmbedderOptions);

export type OnnxEmbeddingConfig = { readonly kind: "onnx" } & OnnxEmbedderOptions & {
    /**
     * Run the model in this many worker threads instead of the calling thread. onnxruntime-node holds the
     * thread for a whole inference, so a server should use ≥ 1 (on 2 cores: 1 worker with `threads: 2`,
     * or 2 workers with `threads: 1` for throughput). 0 or absent: in the calling thread.
     */
    readonly workers?: number;
  };

export async function createEmbeddingProvider(config: EmbeddingProviderConfig): Promise<EmbeddingProvider> {
  switch (config.kind) {
    case "onnx":
      return createOnnx(config);
    case "http": {
      const { kind: _kind, ...options } = config;
      return createHttpEmbedder(options);
    }
    case "builtin":
      return config.create();
    case "pooled": {
      const { kind: _kind, ...options } = config;
      return createPooledEmbedder(options);
    }
  }
}

async function createOnnx(config: OnnxEmbeddingConfig): Promise<EmbeddingProvider> {
  const { kind: _kind, workers, ...options } = config;
  if (workers === undefined || workers < 1) return createOnnxEmbedder(options);
  // The calling thread only needs the tokenizer (for the chunker); the model lives in the workers.
  const tokenizer = await loadModelTokenizer(options.modelDir, `onnx:${options.modelDir}`);
  return createPooledEmbedder({
    moduleUrl: new URL(
      `./onnx/create-onnx-embedder${extname(fileURLToPath(import.meta.url))}`,
      import.meta.url,
    ),
    exportName: "createOnnxEmbedder",
    options,
    tokenizer: { countTokens: (text) => tokenizer.countTokens(text) },
    size: workers,
  });
}
