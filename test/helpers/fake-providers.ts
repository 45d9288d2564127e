import { setTimeout as sleep } from "node:timers/promises";
import {
  type FakeServer,
  fakeVector,
  type RecordedRequest,
  type Reply,
  startFakeServer,
} from "./fake-http-server.js";

/**
 * One local server answering like OpenAI, Cohere (v2), Voyage, Jina and Mistral do — paths, Bearer
 * auth, JSON fields and error bodies as their API references give them — so provider clients are
 * tested against the real shapes. `failNext` scripts failures (429 with Retry-After, 5xx, 401).
 */
export interface FakeProviders extends FakeServer {
  /** The key every provider accepts; anything else is answered 401 in that provider's error shape. */
  readonly validKey: string;
  /** Scripts the next answers (in order) before normal service resumes. */
  failNext(...replies: Reply[]): void;
  /** Requests to one path. */
  to(path: string): RecordedRequest[];
  /**
   * Answers `n` more requests to `path`, then never answers another (the caller hangs until it gives
   * up or dies): freezes a job at a known point. `holdAfter(path, Infinity)` answers again.
   */
  holdAfter(path: string, n: number): void;
}

const DIMS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1024,
  "embed-v4.0": 1024,
  "voyage-3.5": 1024,
  "jina-embeddings-v3": 1024,
  "mistral-embed": 1024,
  "nomic-embed-text": 768,
};

function unauthorized(path: string): Reply {
  if (path.startsWith("/v2/")) return { status: 401, json: { id: "err-1", message: "invalid api token" } };
  if (path.startsWith("/mistral/")) {
    return { status: 401, json: { detail: "Unauthorized" } };
  }
  if (path.startsWith("/voyage/") || path.startsWith("/jina/")) {
    return { status: 401, json: { detail: "Provided API key is invalid." } };
  }
  return {
    status: 401,
    json: {
      error: {
        message: "Incorrect API key provided.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    },
  };
}

export interface FakeProvidersOptions {
  /** Model time each embeddings / rerank answer takes before it is written (benchmarks). */
  readonly latencyMs?: number;
}

export async function startFakeProviders(
  validKey = "sk-test-CLEARKEY-0123456789abcdef",
  options: FakeProvidersOptions = {},
): Promise<FakeProviders> {
  const scripted: Reply[] = [];
  const holds = new Map<string, number>();
  const seen = new Map<string, number>();
  const server = await startFakeServer(async (request) => {
    const count = (seen.get(request.path) ?? 0) + 1;
    seen.set(request.path, count);
    const hold = holds.get(request.path);
    if (hold !== undefined && count > hold) return "hang";
    const next = scripted.shift();
    if (next !== undefined) return next;
    if (options.latencyMs) await sleep(options.latencyMs);
    if (request.headers.authorization !== `Bearer ${validKey}`) return unauthorized(request.path);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const model = String(body.model ?? "");
    const dim = (body.dimensions ?? body.output_dimension ?? DIMS[model] ?? 1024) as number;
    const path = request.path.replace(/^\/(voyage|jina|mistral|openai|local)/, "");
    if (path === "/v1/embeddings") {
      const input = (Array.isArray(body.input) ? body.input : [body.input]).map(String);
      return {
        json: {
          object: "list",
          data: input.map((text, index) => ({
            object: "embedding",
            index,
            embedding: fakeVector(text, dim),
          })),
          model,
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        },
      };
    }
    if (path === "/v2/embed") {
      const texts = (body.texts as unknown[]).map(String);
      return {
        json: {
          id: "emb-1",
          embeddings: { float: texts.map((t) => fakeVector(t, dim)) },
          texts,
          meta: { api_version: { version: "2" }, billed_units: { input_tokens: texts.length } },
        },
      };
    }
    if (path === "/v2/rerank" || path === "/v1/rerank") {
      const documents = (body.documents as unknown[]).map(String);
      const query = String(body.query);
      const scored = documents
        .map((d, index) => ({ index, relevance_score: overlap(query, d) }))
        .sort((a, b) => b.relevance_score - a.relevance_score);
      if (request.path.startsWith("/voyage/")) {
        return { json: { object: "list", data: scored, model, usage: { total_tokens: 10 } } };
      }
      return { json: { id: "rr-1", results: scored, meta: { billed_units: { search_units: 1 } } } };
    }
    return { status: 404, json: { message: `no route ${request.path}` } };
  });
  return {
    ...server,
    validKey,
    failNext: (...replies) => scripted.push(...replies),
    to: (path) => server.requests.filter((r) => r.path === path),
    holdAfter: (path, n) => holds.set(path, (seen.get(path) ?? 0) + n),
  };
}

function overlap(query: string, document: string): number {
  const words = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
  const hits = document
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => words.has(w)).length;
  return hits / (hits + 1);
}
