import { createHash } from "node:crypto";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { Models } from "../../core/models/load-models.js";
import { ProviderError } from "../../core/models/provider-error.js";

export type EmbedderMode = "ok" | "provider-error" | "crash";

export interface SwitchableModels extends Models {
  /** What the next embed calls do: work, fail like a remote provider, or fail like a bug. */
  mode: EmbedderMode;
}

/**
 * A deterministic word-hashing embedder (64 dims, enough for recall to match words) that a test can
 * switch into failing, to see core's provider_error (-32000) and ingest_failed (-32603) on MCP.
 */
export function switchableModels(): SwitchableModels {
  const dim = 64;
  const models: SwitchableModels = {
    mode: "ok",
    reranker: undefined,
    close: async () => undefined,
    embedder: {
      id: "test-switchable-64",
      dim,
      tokenizer: { countTokens: (text) => text.split(/\s+/).filter(Boolean).length },
      async embed(texts) {
        if (models.mode === "provider-error") {
          throw new ProviderError("test-provider: answered 503", {
            reason: "unavailable",
            provider: "test-provider",
            status: 503,
          });
        }
        if (models.mode === "crash") throw new Error("embedder crashed");
        return texts.map((text) => {
          const v = new Float32Array(dim);
          for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
            const h = createHash("sha256").update(word).digest();
            v[(h[0] ?? 0) % dim] = (v[(h[0] ?? 0) % dim] ?? 0) + ((h[1] ?? 0) & 1 ? 1 : -1);
          }
          const norm = Math.hypot(...v) || 1;
          return v.map((x) => x / norm);
        });
      },
    } satisfies EmbeddingProvider,
  };
  return models;
}
