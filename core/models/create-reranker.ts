import { createHttpReranker, type HttpRerankerOptions } from "./http/create-http-reranker.js";
import { createOnnxReranker, type OnnxRerankerOptions } from "./onnx/create-onnx-reranker.js";
import type { Reranker } from "./reranker.js";

/** Which reranker to run — built by the composition file from its configuration. */
export type RerankerConfig =
  | ({ readonly kind: "onnx" } & OnnxRerankerOptions)
  | ({ readonly kind: "http" } & HttpRerankerOptions)
  | {
      readonly kind: "builtin";
      /** The built-in reranker's factory, injected so this module does not depend on its internals. */
      readonly create: () => Reranker | Promise<Reranker>;
    };

export async function createReranker(config: RerankerConfig): Promise<Reranker> {
  switch (config.kind) {
    case "onnx": {
      const { kind: _kind, ...options } = config;
      return createOnnxReranker(options);
    }
    case "http": {
      const { kind: _kind, ...options } = config;
      return createHttpReranker(options);
    }
    case "builtin":
      return config.create();
  }
}
