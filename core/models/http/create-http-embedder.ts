import { approximateTokenizer } from "../approximate-tokenizer.js";
import type { EmbeddingProvider, EmbedPurpose, Tokenizer } from "../embedding-provider.js";
import { l2NormalizeInPlace } from "../l2-normalize.js";
import { limitConcurrency } from "../limit-concurrency.js";
import { ProviderError } from "../provider-error.js";
import { parseEmbeddingsResponse } from "./parse-embeddings-response.js";
import { type JsonEndpointOptions, postJson } from "./post-json.js";
import { describeEndpoint } from "./redact-secret.js";

export interface HttpEmbedderOptions {
  /**
   * Base URL of an OpenAI-compatible API, up to and including its version segment: Ollama
   * `http://host:11434/v1`, Text Embeddings Inference or vLLM `http://host:8080/v1`, OpenAI
   * `https://api.openai.com/v1`. Requests go to `${url}/embeddings`.
   */
  readonly url: string;
  readonly model: string;
  /** Sent as a Bearer token (BYOK). Never logged, never part of an error message. */
  readonly apiKey?: string;
  /** Vector length; when omitted, one probe request at creation finds it out. */
  readonly dim?: number;
  /** Inputs per request (default 64; TEI's default client batch limit is 32 — set it lower there). */
  readonly batchSize?: number;
  /** Requests in flight at once (default 2). */
  readonly concurrency?: number;
  /** Per request attempt (default 30 s). */
  readonly timeoutMs?: number;
  /** Retries after the first attempt for 429 / 5xx / timeouts / connection errors (default 3). */
  readonly maxRetries?: number;
  /** First backoff delay (default 500 ms), doubling per retry. */
  readonly retryBaseMs?: number;
  /** e5-style prefixes, if the served model expects them. */
  readonly queryPrefix?: string;
  readonly passagePrefix?: string;
  /** The model's token counter if the caller has one; default `approximateTokenizer`. */
  readonly tokenizer?: Tokenizer;
  /** Embedding space name; default `http:<model>:<dim>`. */
  readonly id?: string;
}

/** Embeddings from an OpenAI-compatible `/embeddings` endpoint, L2-normalised on arrival. */
export async function createHttpEmbedder(options: HttpEmbedderOptions): Promise<EmbeddingProvider> {
  const provider = `http:${options.model}`;
  const endpoint = `${options.url.replace(/\/+$/, "")}/embeddings`;
  const requestOptions: JsonEndpointOptions = {
    provider,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 3,
    retryBaseMs: options.retryBaseMs ?? 500,
  };
  const batchSize = options.batchSize ?? 64;
  const limit = limitConcurrency(options.concurrency ?? 2);
  const prefixes: Record<EmbedPurpose, string> = {
    query: options.queryPrefix ?? "",
    passage: options.passagePrefix ?? "",
  };
  let dim = options.dim;

  const request = async (input: readonly string[]): Promise<Float32Array[]> => {
    const body = await postJson(endpoint, { model: options.model, input }, requestOptions);
    const vectors = parseEmbeddingsResponse(body, input.length);
    if (typeof vectors === "string") throw badResponse(vectors);
    const length = vectors[0]?.length ?? 0;
    if (dim !== undefined && length !== dim)
      throw badResponse(`expected ${dim}-dimensional embeddings, got ${length}`);
    return vectors.map(l2NormalizeInPlace);
  };
  const badResponse = (detail: string) =>
    new ProviderError(`${provider}: unexpected answer from ${describeEndpoint(endpoint)}: ${detail}`, {
      reason: "bad_response",
      provider,
    });

  const embed = async (texts: readonly string[], purpose: EmbedPurpose): Promise<Float32Array[]> => {
    const inputs = texts.map((text) => prefixes[purpose] + text);
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += batchSize) batches.push(inputs.slice(i, i + batchSize));
    const results = await Promise.all(batches.map((batch) => limit(() => request(batch))));
    return results.flat();
  };

  if (dim === undefined) {
    const [probe] = await request(["dimension probe"]);
    dim = probe?.length ?? 0;
  }
  if (!Number.isInteger(dim) || dim < 1) throw badResponse(`invalid dimension ${dim}`);
  const knownDim = dim;

  return {
    id: options.id ?? `http:${options.model}:${knownDim}`,
    dim: knownDim,
    tokenizer: options.tokenizer ?? approximateTokenizer,
    embed,
  };
}
