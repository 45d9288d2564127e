import type { EmbedPurpose } from "../embedding-provider.js";
import { isRecord } from "../read-json-file.js";
import { parseEmbeddingsResponse } from "./parse-embeddings-response.js";

/** The providers a workspace can bring a key for (proto ProviderKey.provider). */
export const PROVIDER_NAMES = ["openai", "openai-compatible", "cohere", "voyage", "jina", "mistral"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

/** The stored vector length; providers that can shorten or lengthen their output are asked for it. */
const WANTED_DIM = 1024;

/** How one provider's embeddings endpoint is called and answered (each provider's public API reference). */
export interface EmbeddingApi {
  readonly defaultModel: string | undefined;
  /** Appended to the base URL. */
  readonly path: string;
  /** Inputs per request: the provider's limit, at most 64. */
  readonly maxBatch: number;
  /** The dimension this model answers with when known up front (after asking for 1024 where allowed). */
  knownDim(model: string): number | undefined;
  body(model: string, inputs: readonly string[], purpose: EmbedPurpose): Record<string, unknown>;
  parse(body: unknown, count: number): Float32Array[] | string;
}

export interface RerankApi {
  readonly defaultModel: string;
  readonly path: string;
  readonly maxBatch: number;
  body(model: string, query: string, documents: readonly string[]): Record<string, unknown>;
}

export interface ProviderApi {
  /** Undefined: the key record must carry a base URL (openai-compatible). */
  readonly defaultBaseUrl: string | undefined;
  readonly embed: EmbeddingApi;
  readonly rerank?: RerankApi;
}

/** OpenAI text-embedding-3-* take `dimensions`; ada-002 and other servers' models do not. */
const openAiShortens = (model: string) => model.startsWith("text-embedding-3");

const OPENAI_NATIVE: Readonly<Record<string, number>> = { "text-embedding-ada-002": 1536 };

/**
 * Request and answer shapes per provider, as their API references give them:
 * - OpenAI `POST /v1/embeddings` `{model, input, encoding_format, dimensions?}` → `{data: [{index, embedding}]}`;
 * - Cohere `POST /v2/embed` `{model, texts, input_type, embedding_types, output_dimension?}` →
 *   `{embeddings: {float: [[…]]}}`; `POST /v2/rerank` `{model, query, documents, top_n}` → `{results}`;
 * - Voyage `POST /v1/embeddings` `{model, input, input_type, output_dimension?}` → `{data}`;
 *   `POST /v1/rerank` `{model, query, documents, top_k}` → `{data: [{index, relevance_score}]}`;
 * - Jina `POST /v1/embeddings` `{model, input, task, dimensions?}` → `{data}`; `POST /v1/rerank` →
 *   `{results}`;
 * - Mistral `POST /v1/embeddings` `{model, input}` → `{data}` (mistral-embed: 1024, fixed).
 * All authenticate with `Authorization: Bearer <key>`.
 */
export const PROVIDER_APIS: Readonly<Record<ProviderName, ProviderApi>> = {
  openai: {
    defaultBaseUrl: "https://api.openai.com/v1",
    embed: {
      defaultModel: "text-embedding-3-small",
      path: "/embeddings",
      maxBatch: 64,
      knownDim: (model) => (openAiShortens(model) ? WANTED_DIM : OPENAI_NATIVE[model]),
      body: (model, input) => ({
        model,
        input,
        encoding_format: "float",
        ...(openAiShortens(model) ? { dimensions: WANTED_DIM } : {}),
      }),
      parse: parseEmbeddingsResponse,
    },
  },
  "openai-compatible": {
    defaultBaseUrl: undefined,
    embed: {
      defaultModel: undefined,
      path: "/embeddings",
      maxBatch: 64,
      knownDim: () => undefined,
      body: (model, input) => ({ model, input }),
      parse: parseEmbeddingsResponse,
    },
  },
  cohere: {
    defaultBaseUrl: "https://api.cohere.com",
    embed: {
      defaultModel: "embed-v4.0",
      path: "/v2/embed",
      maxBatch: 64,
      knownDim: (model) => (model.startsWith("embed-v4") ? WANTED_DIM : cohereV3Dim(model)),
      body: (model, texts, purpose) => ({
        model,
        texts,
        input_type: purpose === "query" ? "search_query" : "search_document",
        embedding_types: ["float"],
        ...(model.startsWith("embed-v4") ? { output_dimension: WANTED_DIM } : {}),
      }),
      parse: parseCohereEmbeddings,
    },
    rerank: {
      defaultModel: "rerank-v3.5",
      path: "/v2/rerank",
      maxBatch: 100,
      body: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
    },
  },
  voyage: {
    defaultBaseUrl: "https://api.voyageai.com/v1",
    embed: {
      defaultModel: "voyage-3.5",
      path: "/embeddings",
      maxBatch: 64,
      knownDim: (model) => (voyageShortens(model) ? WANTED_DIM : undefined),
      body: (model, input, purpose) => ({
        model,
        input,
        input_type: purpose === "query" ? "query" : "document",
        ...(voyageShortens(model) ? { output_dimension: WANTED_DIM } : {}),
      }),
      parse: parseEmbeddingsResponse,
    },
    rerank: {
      defaultModel: "rerank-2.5",
      path: "/rerank",
      maxBatch: 100,
      body: (model, query, documents) => ({ model, query, documents, top_k: documents.length }),
    },
  },
  jina: {
    defaultBaseUrl: "https://api.jina.ai/v1",
    embed: {
      defaultModel: "jina-embeddings-v3",
      path: "/embeddings",
      maxBatch: 64,
      knownDim: (model) => (jinaShortens(model) ? WANTED_DIM : undefined),
      body: (model, input, purpose) => ({
        model,
        input,
        task: purpose === "query" ? "retrieval.query" : "retrieval.passage",
        ...(jinaShortens(model) ? { dimensions: WANTED_DIM } : {}),
      }),
      parse: parseEmbeddingsResponse,
    },
    rerank: {
      defaultModel: "jina-reranker-v2-base-multilingual",
      path: "/rerank",
      maxBatch: 100,
      body: (model, query, documents) => ({
        model,
        query,
        documents,
        top_n: documents.length,
        return_documents: false,
      }),
    },
  },
  mistral: {
    defaultBaseUrl: "https://api.mistral.ai/v1",
    embed: {
      defaultModel: "mistral-embed",
      path: "/embeddings",
      maxBatch: 64,
      knownDim: (model) =>
        model === "mistral-embed" ? 1024 : model.startsWith("codestral-embed") ? 1024 : undefined,
      body: (model, input) => ({
        model,
        input,
        ...(model.startsWith("codestral-embed") ? { output_dimension: WANTED_DIM } : {}),
      }),
      parse: parseEmbeddingsResponse,
    },
  },
};

function cohereV3Dim(model: string): number | undefined {
  if (!model.startsWith("embed-")) return undefined;
  return model.includes("light") ? 384 : 1024;
}

/** voyage-3.5, voyage-3-large, voyage-code-3 and the voyage-4 family take output_dimension 1024. */
const voyageShortens = (model: string) =>
  /^voyage-(3\.5|3-large|code-3|4)/.test(model) || model === "voyage-3.5-lite";

/** jina-embeddings-v3 and v4 are Matryoshka models (v3: at most 1024). */
const jinaShortens = (model: string) => /^jina-embeddings-v[34]/.test(model);

/** Cohere v2: `{ embeddings: { float: number[][] } }`. */
function parseCohereEmbeddings(body: unknown, count: number): Float32Array[] | string {
  if (!isRecord(body) || !isRecord(body.embeddings) || !Array.isArray(body.embeddings.float)) {
    return "answer has no embeddings.float array";
  }
  const rows: unknown[] = body.embeddings.float;
  return parseEmbeddingsResponse({ data: rows.map((embedding, index) => ({ index, embedding })) }, count);
}
