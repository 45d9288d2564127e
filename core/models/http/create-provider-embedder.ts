import { type OutboundGuard, sharedOutboundGuard } from "../../../lib/net/outbound-guard.js";
import { approximateTokenizer } from "../approximate-tokenizer.js";
import type { EmbeddingProvider, EmbedPurpose } from "../embedding-provider.js";
import { l2NormalizeInPlace } from "../l2-normalize.js";
import { limitConcurrency } from "../limit-concurrency.js";
import { ProviderError } from "../provider-error.js";
import { rerankPassage } from "../rerank-passage.js";
import type { Reranker } from "../reranker.js";
import { parseRerankResponse } from "./parse-rerank-response.js";
import { type JsonEndpointOptions, postJson } from "./post-json.js";
import { PROVIDER_APIS, type ProviderName } from "./provider-apis.js";
import { describeEndpoint } from "./redact-secret.js";

/** One customer-supplied key (BYOK) used against its provider's API. */
export interface ProviderClientOptions {
  readonly provider: ProviderName;
  /** Sent as `Authorization: Bearer …` (Azure OpenAI hosts: `api-key`). Never logged or put in errors. */
  readonly apiKey: string;
  /** Default: the provider's public API (openai-compatible has none and needs one). */
  readonly baseUrl?: string | undefined;
  /** Default: the provider's default model (provider-apis.ts). */
  readonly model?: string | undefined;
  /** The vector length the key was tested with; when unset, the first request finds it out. */
  readonly dim?: number | undefined;
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly retryBaseMs?: number;
  /** Requests in flight at once (default 2). */
  readonly concurrency?: number;
  /** Called after every request that answered (to record the key's last use). */
  readonly onUsed?: () => void;
  /**
   * The SSRF guard every request goes through (lib/net/outbound-guard.ts): each connection is checked
   * when it is made, redirects are not followed. Default: public addresses only; with
   * PROVIDER_ALLOW_PRIVATE_URLS the composition passes one that allows private addresses.
   */
  readonly guard?: OutboundGuard;
}

export function providerBaseUrl(options: Pick<ProviderClientOptions, "provider" | "baseUrl">): string {
  const base = options.baseUrl ?? PROVIDER_APIS[options.provider].defaultBaseUrl;
  if (base === undefined) {
    throw new ProviderError(`${options.provider}: a base URL is required`, {
      reason: "rejected",
      provider: options.provider,
    });
  }
  return base.replace(/\/+$/, "");
}

export function embeddingModelOf(options: Pick<ProviderClientOptions, "provider" | "model">): string {
  const model = options.model ?? PROVIDER_APIS[options.provider].embed.defaultModel;
  if (model === undefined) {
    throw new ProviderError(`${options.provider}: a model is required`, {
      reason: "rejected",
      provider: options.provider,
    });
  }
  return model;
}

/**
 * The embedding space of a provider model: vectors of the same model and length are comparable
 * whatever key produced them. An openai-compatible server names its own models, so its host is part
 * of the name.
 */
export function providerSpaceId(
  provider: ProviderName,
  model: string,
  dim: number,
  baseUrl?: string,
): string {
  if (provider !== "openai-compatible" || baseUrl === undefined) return `${provider}:${model}:${dim}`;
  return `${provider}@${new URL(baseUrl).host}:${model}:${dim}`;
}

function requestOptionsFor(
  options: ProviderClientOptions,
  label: string,
  timeoutMs: number,
): JsonEndpointOptions {
  const base = providerBaseUrl(options);
  const azure = /\.openai\.azure\.com$/i.test(new URL(base).hostname);
  return {
    provider: label,
    apiKey: azure ? undefined : options.apiKey,
    ...(azure ? { headers: { "api-key": options.apiKey }, secrets: [options.apiKey] } : {}),
    fetch: (options.guard ?? sharedOutboundGuard(false)).fetch,
    timeoutMs: options.timeoutMs ?? timeoutMs,
    maxRetries: options.maxRetries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 500,
  };
}

/**
 * Embeddings through a provider's own API with a workspace's key: batches of up to 64 inputs (fewer
 * where the provider allows fewer), two requests in flight, retries with backoff on 429 / 5xx
 * (Retry-After honoured), 1024 dimensions asked for where the model allows it (shorter vectors are
 * zero-padded by the store; cosine is unchanged), L2-normalised on arrival.
 */
export async function createProviderEmbedder(options: ProviderClientOptions): Promise<EmbeddingProvider> {
  const api = PROVIDER_APIS[options.provider].embed;
  const model = embeddingModelOf(options);
  const label = `${options.provider}:${model}`;
  const endpoint = providerBaseUrl(options) + api.path;
  const requestOptions = requestOptionsFor(options, label, 30_000);
  const limit = limitConcurrency(options.concurrency ?? 2);
  let dim = options.dim ?? api.knownDim(model);

  const badResponse = (detail: string) =>
    new ProviderError(`${label}: unexpected answer from ${describeEndpoint(endpoint)}: ${detail}`, {
      reason: "bad_response",
      provider: label,
    });

  const request = async (input: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    const body = await postJson(endpoint, api.body(model, input, purpose), requestOptions);
    options.onUsed?.();
    const vectors = api.parse(body, input.length);
    if (typeof vectors === "string") throw badResponse(vectors);
    const length = vectors[0]?.length ?? 0;
    if (dim !== undefined && length !== dim)
      throw badResponse(`expected ${dim}-dimensional embeddings, got ${length}`);
    return vectors.map(l2NormalizeInPlace);
  };

  if (dim === undefined) {
    const [probe] = await request(["dimension probe"], "passage");
    dim = probe?.length ?? 0;
  }
  if (!Number.isInteger(dim) || dim < 1) throw badResponse(`invalid dimension ${dim}`);
  const knownDim = dim;

  return {
    id: providerSpaceId(options.provider, model, knownDim, options.baseUrl),
    dim: knownDim,
    tokenizer: approximateTokenizer,
    async embed(texts, purpose) {
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += api.maxBatch) batches.push(texts.slice(i, i + api.maxBatch));
      const results = await Promise.all(batches.map((batch) => limit(() => request(batch, purpose))));
      return results.flat();
    },
  };
}

/** Reranking through Cohere's, Voyage's or Jina's rerank API with a workspace's key. */
export function createProviderReranker(options: ProviderClientOptions): Reranker {
  const api = PROVIDER_APIS[options.provider].rerank;
  if (api === undefined) {
    throw new ProviderError(`${options.provider} offers no rerank API`, {
      reason: "rejected",
      provider: options.provider,
    });
  }
  const model = options.model ?? api.defaultModel;
  const label = `${options.provider}-rerank:${model}`;
  const endpoint = providerBaseUrl(options) + api.path;
  const requestOptions = {
    ...requestOptionsFor(options, label, 10_000),
    maxRetries: options.maxRetries ?? 1,
  };
  const limit = limitConcurrency(options.concurrency ?? 2);

  const request = async (query: string, documents: readonly string[]): Promise<number[]> => {
    const answer = await postJson(endpoint, api.body(model, query, documents), requestOptions);
    options.onUsed?.();
    const scores = parseRerankResponse(answer, documents.length);
    if (typeof scores === "string") {
      throw new ProviderError(`${label}: unexpected answer from ${describeEndpoint(endpoint)}: ${scores}`, {
        reason: "bad_response",
        provider: label,
      });
    }
    return scores;
  };

  return {
    id: `${options.provider}-rerank:${model}`,
    async rerank(query, candidates) {
      const passages = candidates.map(rerankPassage);
      const batches: string[][] = [];
      for (let i = 0; i < passages.length; i += api.maxBatch)
        batches.push(passages.slice(i, i + api.maxBatch));
      const scores = await Promise.all(batches.map((batch) => limit(() => request(query, batch))));
      return scores.flat();
    },
  };
}
