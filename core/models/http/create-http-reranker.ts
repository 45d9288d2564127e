import { limitConcurrency } from "../limit-concurrency.js";
import { ProviderError } from "../provider-error.js";
import { rerankPassage } from "../rerank-passage.js";
import type { Reranker } from "../reranker.js";
import { parseRerankResponse } from "./parse-rerank-response.js";
import { type JsonEndpointOptions, postJson } from "./post-json.js";
import { describeEndpoint } from "./redact-secret.js";

/** Which rerank API the server speaks; "auto" tries TEI's and falls back to Cohere's/Jina's. */
export type RerankApi = "tei" | "cohere" | "jina" | "auto";

export interface HttpRerankerOptions {
  /**
   * Base URL: TEI `http://host:8080` (→ `/rerank`); Cohere `https://api.cohere.com` or Jina
   * `https://api.jina.ai` (→ `/v1/rerank`; a URL already ending in a version such as `/v2` gets `/rerank`).
   */
  readonly url: string;
  readonly api?: RerankApi;
  /** Required by Cohere and Jina; TEI serves one model and ignores it. */
  readonly model?: string;
  readonly apiKey?: string;
  /** Passages per request (default 32, TEI's default client batch limit). */
  readonly batchSize?: number;
  /** Per attempt (default 10 s: reranking sits on the recall path). */
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly retryBaseMs?: number;
  /** Default `http-rerank:<api>:<model or host>`. */
  readonly id?: string;
}

type ConcreteApi = Exclude<RerankApi, "auto">;

/** Reranking through a TEI, Cohere or Jina compatible `rerank` endpoint; scores come back in input order. */
export function createHttpReranker(options: HttpRerankerOptions): Reranker {
  const base = options.url.replace(/\/+$/, "");
  const api = options.api ?? "auto";
  const label = options.model ?? describeEndpoint(base);
  const provider = `http-rerank:${label}`;
  const requestOptions: JsonEndpointOptions = {
    provider,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 1,
    retryBaseMs: options.retryBaseMs ?? 200,
  };
  const batchSize = options.batchSize ?? 32;
  const limit = limitConcurrency(2);
  let resolved: ConcreteApi | undefined = api === "auto" ? undefined : api;

  const requestIn = async (
    style: ConcreteApi,
    query: string,
    passages: readonly string[],
  ): Promise<number[]> => {
    const [url, body] =
      style === "tei"
        ? [`${base}/rerank`, { query, texts: passages, raw_scores: false, truncate: true }]
        : [
            /\/v\d+$/.test(base) ? `${base}/rerank` : `${base}/v1/rerank`,
            {
              ...(options.model === undefined ? {} : { model: options.model }),
              query,
              documents: passages,
              top_n: passages.length,
              return_documents: false,
            },
          ];
    const scores = parseRerankResponse(await postJson(url, body, requestOptions), passages.length);
    if (typeof scores === "string") {
      throw new ProviderError(`${provider}: unexpected answer from ${describeEndpoint(url)}: ${scores}`, {
        reason: "bad_response",
        provider,
      });
    }
    return scores;
  };

  const request = async (query: string, passages: readonly string[]): Promise<number[]> => {
    if (resolved !== undefined) return requestIn(resolved, query, passages);
    try {
      const scores = await requestIn("tei", query, passages);
      resolved = "tei";
      return scores;
    } catch (error) {
      if (!speaksAnotherApi(error)) throw error;
    }
    const scores = await requestIn("cohere", query, passages);
    resolved = "cohere";
    return scores;
  };

  return {
    id: options.id ?? `http-rerank:${api}:${label}`,
    async rerank(query, candidates) {
      const passages = candidates.map(rerankPassage);
      const batches: string[][] = [];
      for (let i = 0; i < passages.length; i += batchSize) batches.push(passages.slice(i, i + batchSize));
      const scores = await Promise.all(batches.map((batch) => limit(() => request(query, batch))));
      return scores.flat();
    },
  };
}

/** A TEI-style request refused as unknown route or malformed body suggests a Cohere/Jina-style server. */
function speaksAnotherApi(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  if (error.reason === "bad_response") return true;
  return error.reason === "rejected" && [400, 404, 405, 422].includes(error.status ?? 0);
}
