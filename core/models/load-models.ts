import type { Config } from "../../config/config.js";
import type { Logger } from "../../config/logger.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import type { Reranker } from "./reranker.js";

export interface Models {
  readonly embedder: EmbeddingProvider;
  readonly reranker: Reranker | undefined;
  close(): Promise<void>;
}

/**
 * Builds the configured embedder and reranker. Provisional: until the provider modules land, only
 * a token-counting shell exists and embedding is refused.
 */
export async function loadModels(config: Config, _logger: Logger): Promise<Models> {
  const embedder: EmbeddingProvider = {
    id: `pending-${config.embedding.kind}`,
    dim: 1024,
    tokenizer: { countTokens: (text) => text.split(/\s+/).filter(Boolean).length },
    embed: async () => {
      throw new Error("embedding provider not available yet");
    },
  };
  return { embedder, reranker: undefined, close: async () => undefined };
}
