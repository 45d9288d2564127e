import test from "ava";
import {
  createProviderEmbedder,
  createProviderReranker,
} from "../../core/models/http/create-provider-embedder.js";
import { ProviderError } from "../../core/models/provider-error.js";
import { sharedOutboundGuard } from "../../lib/net/outbound-guard.js";
import { type FakeProviders, startFakeProviders } from "../helpers/fake-providers.js";

// Each BYOK provider client against a local server speaking that provider's API: the exact request
// (path, Bearer header, JSON body) it sends, its answer parsed, batching, 429 + Retry-After, errors.

let fake: FakeProviders;
test.before(async () => {
  fake = await startFakeProviders();
});
test.after.always(() => fake?.close());

const key = () => fake.validKey;

test.serial("openai: POST /v1/embeddings with dimensions 1024 and encoding_format float", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "openai",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/openai/v1`,
  });
  const [vector] = await embedder.embed(["hello"], "passage");
  t.is(embedder.id, "openai:text-embedding-3-small:1024");
  t.is(vector?.length, 1024);
  const [request] = fake.requests;
  t.is(request?.path, "/openai/v1/embeddings");
  t.is(request?.headers.authorization, `Bearer ${key()}`);
  t.is(request?.headers["content-type"], "application/json");
  t.deepEqual(request?.body, {
    model: "text-embedding-3-small",
    input: ["hello"],
    encoding_format: "float",
    dimensions: 1024,
  });
});

test.serial(
  "cohere: POST /v2/embed with input_type per purpose, embedding_types and output_dimension",
  async (t) => {
    fake.requests.length = 0;
    const embedder = await createProviderEmbedder({
      provider: "cohere",
      apiKey: key(),
      guard: sharedOutboundGuard(true),
      baseUrl: fake.url,
    });
    await embedder.embed(["a passage"], "passage");
    await embedder.embed(["a query"], "query");
    t.deepEqual(
      fake.requests.map((r) => [r.path, r.body]),
      [
        [
          "/v2/embed",
          {
            model: "embed-v4.0",
            texts: ["a passage"],
            input_type: "search_document",
            embedding_types: ["float"],
            output_dimension: 1024,
          },
        ],
        [
          "/v2/embed",
          {
            model: "embed-v4.0",
            texts: ["a query"],
            input_type: "search_query",
            embedding_types: ["float"],
            output_dimension: 1024,
          },
        ],
      ],
    );
    t.is(fake.requests[0]?.headers.authorization, `Bearer ${key()}`);
  },
);

test.serial("voyage: POST /v1/embeddings with input_type document/query and output_dimension", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "voyage",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/voyage/v1`,
  });
  await embedder.embed(["doc"], "passage");
  await embedder.embed(["q"], "query");
  t.deepEqual(
    fake.requests.map((r) => [r.path, r.body]),
    [
      [
        "/voyage/v1/embeddings",
        { model: "voyage-3.5", input: ["doc"], input_type: "document", output_dimension: 1024 },
      ],
      [
        "/voyage/v1/embeddings",
        { model: "voyage-3.5", input: ["q"], input_type: "query", output_dimension: 1024 },
      ],
    ],
  );
});

test.serial("jina: POST /v1/embeddings with task retrieval.passage/query and dimensions", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "jina",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/jina/v1`,
  });
  await embedder.embed(["doc"], "passage");
  await embedder.embed(["q"], "query");
  t.deepEqual(
    fake.requests.map((r) => r.body),
    [
      { model: "jina-embeddings-v3", input: ["doc"], task: "retrieval.passage", dimensions: 1024 },
      { model: "jina-embeddings-v3", input: ["q"], task: "retrieval.query", dimensions: 1024 },
    ],
  );
});

test.serial("mistral: POST /v1/embeddings {model, input}; 1024 native", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "mistral",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/mistral/v1`,
  });
  const [vector] = await embedder.embed(["bonjour"], "passage");
  t.is(vector?.length, 1024);
  t.deepEqual(fake.requests[0]?.body, { model: "mistral-embed", input: ["bonjour"] });
  t.is(fake.requests[0]?.path, "/mistral/v1/embeddings");
});

test.serial(
  "openai-compatible: probes the dimension once, 768 stays 768 (the store zero-pads)",
  async (t) => {
    fake.requests.length = 0;
    const embedder = await createProviderEmbedder({
      provider: "openai-compatible",
      apiKey: key(),
      guard: sharedOutboundGuard(true),
      baseUrl: `${fake.url}/local/v1`,
      model: "nomic-embed-text",
    });
    t.is(embedder.dim, 768);
    t.regex(embedder.id, /^openai-compatible@127\.0\.0\.1:\d+:nomic-embed-text:768$/);
    t.deepEqual(fake.requests[0]?.body, { model: "nomic-embed-text", input: ["dimension probe"] });
  },
);

test.serial("batches of 64: 150 chunks → 3 requests, vectors in input order", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "openai",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/openai/v1`,
  });
  const texts = Array.from({ length: 150 }, (_, i) => `chunk ${i}`);
  const vectors = await embedder.embed(texts, "passage");
  t.is(vectors.length, 150);
  t.deepEqual(
    fake.requests.map((r) => (r.body as { input: string[] }).input.length),
    [64, 64, 22],
  );
});

test.serial("429 with Retry-After is retried after the given delay; then succeeds", async (t) => {
  fake.requests.length = 0;
  const embedder = await createProviderEmbedder({
    provider: "openai",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/openai/v1`,
    retryBaseMs: 1,
  });
  fake.failNext({
    status: 429,
    headers: { "retry-after": "1" },
    json: {
      error: { message: "Rate limit reached", type: "requests", param: null, code: "rate_limit_exceeded" },
    },
  });
  const started = Date.now();
  await embedder.embed(["x"], "passage");
  t.true(Date.now() - started >= 900, "waited for Retry-After");
  t.is(fake.requests.length, 2);
});

test.serial("a wrong key: unauthorized ProviderError with the provider's words, never the key", async (t) => {
  const wrongKey = "sk-wrong-SECRET-abcdefghijklmnop";
  const embedder = await createProviderEmbedder({
    provider: "openai",
    apiKey: wrongKey,
    guard: sharedOutboundGuard(true),
    baseUrl: `${fake.url}/openai/v1`,
    dim: 1024,
  });
  const error = await t.throwsAsync(embedder.embed(["x"], "passage"), { instanceOf: ProviderError });
  t.is((error as ProviderError).reason, "unauthorized");
  t.regex(error?.message ?? "", /Incorrect API key provided/);
  t.false(error?.message.includes("SECRET"));
});

test.serial("5xx after all retries: unavailable", async (t) => {
  const embedder = await createProviderEmbedder({
    provider: "cohere",
    apiKey: key(),
    guard: sharedOutboundGuard(true),
    baseUrl: fake.url,
    maxRetries: 1,
    retryBaseMs: 1,
  });
  fake.failNext(
    { status: 503, json: { message: "overloaded" } },
    { status: 503, json: { message: "overloaded" } },
  );
  const error = await t.throwsAsync(embedder.embed(["x"], "passage"), { instanceOf: ProviderError });
  t.is((error as ProviderError).reason, "unavailable");
  t.regex(error?.message ?? "", /overloaded/);
});

for (const [provider, base, path, expected] of [
  [
    "cohere",
    "",
    "/v2/rerank",
    { model: "rerank-v3.5", query: "cats", documents: ["cats purr", "dogs bark"], top_n: 2 },
  ],
  [
    "voyage",
    "/voyage/v1",
    "/voyage/v1/rerank",
    { model: "rerank-2.5", query: "cats", documents: ["cats purr", "dogs bark"], top_k: 2 },
  ],
  [
    "jina",
    "/jina/v1",
    "/jina/v1/rerank",
    {
      model: "jina-reranker-v2-base-multilingual",
      query: "cats",
      documents: ["cats purr", "dogs bark"],
      top_n: 2,
      return_documents: false,
    },
  ],
] as const) {
  test.serial(`${provider} rerank: exact request, scores back in input order`, async (t) => {
    fake.requests.length = 0;
    const reranker = createProviderReranker({
      provider,
      apiKey: key(),
      guard: sharedOutboundGuard(true),
      baseUrl: fake.url + base,
    });
    const scores = await reranker.rerank("cats", [
      { id: "1", title: "", text: "cats purr" },
      { id: "2", title: "", text: "dogs bark" },
    ]);
    t.true((scores[0] ?? 0) > (scores[1] ?? 1));
    t.is(fake.requests[0]?.path, path);
    t.is(fake.requests[0]?.headers.authorization, `Bearer ${key()}`);
    t.deepEqual(fake.requests[0]?.body, expected);
  });
}

// SSRF at call time (DNS rebinding): without PROVIDER_ALLOW_PRIVATE_URLS every connection of a
// provider client must reach a public address, whatever the name resolved to when the key was stored.
for (const [what, host] of [
  ["a name that resolves to loopback now", "localhost"],
  ["a loopback IP literal", "127.0.0.1"],
] as const) {
  test.serial(`guarded client: ${what} is refused at connect time, nothing is sent, no retry`, async (t) => {
    fake.requests.length = 0;
    const port = new URL(fake.url).port;
    const embedder = await createProviderEmbedder({
      provider: "openai",
      apiKey: key(),
      baseUrl: `http://${host}:${port}/openai/v1`,
      retryBaseMs: 60_000,
    });
    const error = await t.throwsAsync(embedder.embed(["x"], "passage"), { instanceOf: ProviderError });
    t.is(error?.reason, "rejected");
    t.regex(error?.message ?? "", /refused: .*loopback/);
    t.is(fake.requests.length, 0);
  });
}
