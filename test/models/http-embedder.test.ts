import { createServer } from "node:net";
import test from "ava";
import { approximateTokenizer } from "../../core/models/approximate-tokenizer.js";
import { createHttpEmbedder, type HttpEmbedderOptions } from "../../core/models/http/create-http-embedder.js";
import { ProviderError } from "../../core/models/provider-error.js";
import {
  embeddingsReply,
  type FakeServer,
  fakeVector,
  inputsOf,
  type Reply,
  startFakeServer,
} from "../helpers/fake-http-server.js";

const API_KEY = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const DIM = 6;

const servers: FakeServer[] = [];
test.after.always(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(handle: Parameters<typeof startFakeServer>[0]): Promise<FakeServer> {
  const server = await startFakeServer(handle);
  servers.push(server);
  return server;
}

const ok = (inputs: readonly string[]): Reply => ({ json: embeddingsReply(inputs, DIM) });

function options(server: FakeServer, extra: Partial<HttpEmbedderOptions> = {}): HttpEmbedderOptions {
  return {
    url: `${server.url}/v1`,
    model: "bge-m3",
    apiKey: API_KEY,
    dim: DIM,
    retryBaseMs: 1,
    timeoutMs: 2000,
    ...extra,
  };
}

function normalised(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
}

function assertVector(t: import("ava").ExecutionContext, actual: Float32Array | undefined, input: string) {
  const expected = normalised(fakeVector(input, DIM));
  t.true(
    expected.every((value, i) => Math.abs(value - (actual?.[i] ?? Number.NaN)) < 1e-6),
    input,
  );
}

/** Every way the error can be shown must be free of the key and of any 8-character piece of it. */
function assertNoKey(t: import("ava").ExecutionContext, error: unknown) {
  const shown = [
    String(error),
    JSON.stringify(error),
    (error as Error).message,
    (error as Error).stack ?? "",
  ].join("\n");
  for (let i = 0; i + 8 <= API_KEY.length; i++) {
    t.false(shown.includes(API_KEY.slice(i, i + 8)), `error shows part of the key: ${shown}`);
  }
}

test("posts {model, input} with the bearer key and returns normalised vectors in index order", async (t) => {
  const server = await serve((request) => ({ json: embeddingsReply(inputsOf(request), DIM, "reversed") }));
  const embedder = await createHttpEmbedder(options(server));
  const texts = ["Die Katze schläft.", "The dog barks.", "Regen"];
  const vectors = await embedder.embed(texts, "passage");
  texts.forEach((text, i) => {
    assertVector(t, vectors[i], text);
  });
  const [request] = server.requests;
  t.is(request?.method, "POST");
  t.is(request?.path, "/v1/embeddings");
  t.is(request?.headers.authorization, `Bearer ${API_KEY}`);
  t.deepEqual(request?.body, { model: "bge-m3", input: texts });
  t.is(embedder.id, `http:bge-m3:${DIM}`);
  t.is(embedder.tokenizer, approximateTokenizer);
});

test("without dim, one probe request finds the dimension", async (t) => {
  const server = await serve((request) => ok(inputsOf(request)));
  const { dim: _dim, ...rest } = options(server);
  const embedder = await createHttpEmbedder(rest);
  t.is(embedder.dim, DIM);
  t.is(server.requests.length, 1);
});

test("large calls are split into batches of batchSize, results stay in order", async (t) => {
  const server = await serve((request) => ok(inputsOf(request)));
  const embedder = await createHttpEmbedder(options(server, { batchSize: 4, concurrency: 2 }));
  const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
  const vectors = await embedder.embed(texts, "passage");
  t.deepEqual(
    server.requests.map((request) => inputsOf(request).length),
    [4, 4, 2],
  );
  texts.forEach((text, i) => {
    assertVector(t, vectors[i], text);
  });
});

test("query and passage prefixes are prepended by purpose", async (t) => {
  const server = await serve((request) => ok(inputsOf(request)));
  const embedder = await createHttpEmbedder(
    options(server, { queryPrefix: "query: ", passagePrefix: "passage: " }),
  );
  await embedder.embed(["a"], "query");
  await embedder.embed(["b"], "passage");
  t.deepEqual(server.requests.map(inputsOf), [["query: a"], ["passage: b"]]);
});

test("429 and 503 are retried with backoff until an answer arrives", async (t) => {
  const server = await serve((request, index) => {
    if (index === 0) return { status: 429, headers: { "retry-after": "0" }, json: { error: "slow down" } };
    if (index === 1) return { status: 503, text: "overloaded" };
    return ok(inputsOf(request));
  });
  const embedder = await createHttpEmbedder(options(server));
  const [vector] = await embedder.embed(["hallo"], "query");
  assertVector(t, vector, "hallo");
  t.is(server.requests.length, 3);
});

test("after maxRetries the last failure becomes a ProviderError with reason and status", async (t) => {
  const server = await serve(() => ({ status: 503, text: "upstream down" }));
  const embedder = await createHttpEmbedder(options(server, { maxRetries: 2 }));
  const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "unavailable");
  t.is(error?.status, 503);
  t.true(error?.retryable);
  t.regex(error?.message ?? "", /after 3 attempts.*HTTP 503: upstream down/);
  t.is(server.requests.length, 3);
});

test("rate limiting that never ends is reported as rate_limited", async (t) => {
  const server = await serve(() => ({ status: 429, json: { error: "quota" } }));
  const embedder = await createHttpEmbedder(options(server, { maxRetries: 1 }));
  const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "rate_limited");
  t.is(server.requests.length, 2);
});

test("a server that never answers times out (each attempt), reason timeout", async (t) => {
  const server = await serve(() => "hang");
  const embedder = await createHttpEmbedder(options(server, { timeoutMs: 300, maxRetries: 1 }));
  const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "timeout");
  t.true(error?.retryable);
  t.regex(error?.message ?? "", /after 2 attempts: no answer within 300 ms/);
});

test("a refused connection is a transport error after the retries", async (t) => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
  const error = await t.throwsAsync(
    createHttpEmbedder({
      url: `http://127.0.0.1:${port}/v1`,
      model: "m",
      dim: 4,
      retryBaseMs: 1,
      maxRetries: 1,
    }).then((e) => e.embed(["x"], "query")),
    { instanceOf: ProviderError },
  );
  t.is(error?.reason, "transport");
  t.regex(error?.message ?? "", /ECONNREFUSED/);
});

test("401 is not retried and is reported as unauthorized", async (t) => {
  const server = await serve(() => ({ status: 401, json: { error: { message: "invalid api key" } } }));
  const embedder = await createHttpEmbedder(options(server));
  const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
  t.is(error?.reason, "unauthorized");
  t.false(error?.retryable);
  t.is(server.requests.length, 1);
});

const MALFORMED: Array<[string, (inputs: string[]) => Reply]> = [
  ["a body that is not JSON", () => ({ text: "<html>gateway</html>" })],
  ["no data array", () => ({ json: { embeddings: [] } })],
  ["fewer vectors than inputs", (inputs) => ({ json: embeddingsReply(inputs.slice(1), DIM) })],
  ["a vector of the wrong dimension", (inputs) => ({ json: embeddingsReply(inputs, DIM + 1) })],
  [
    "a non-numeric value",
    (inputs) => ({ json: { data: inputs.map((_, index) => ({ index, embedding: ["1", 2, 3, 4, 5, 6] })) } }),
  ],
  [
    "a duplicate index",
    (inputs) => ({ json: { data: inputs.map(() => ({ index: 0, embedding: fakeVector("x", DIM) })) } }),
  ],
];

for (const [what, reply] of MALFORMED) {
  test(`an answer with ${what} is a bad_response, not retried`, async (t) => {
    const server = await serve((request) => reply(inputsOf(request)));
    const embedder = await createHttpEmbedder(options(server));
    const error = await t.throwsAsync(embedder.embed(["eins", "zwei"], "passage"), {
      instanceOf: ProviderError,
    });
    t.is(error?.reason, "bad_response");
    t.is(server.requests.length, 1);
  });
}

test("the API key never appears in an error, even when the server echoes it", async (t) => {
  const echoes: Reply[] = [
    { status: 401, json: { error: `Incorrect API key provided: ${API_KEY}` } },
    { status: 400, text: `bad request for key ${API_KEY.slice(0, 12)}…${API_KEY.slice(-10)}` },
    { status: 500, text: `Authorization: Bearer ${API_KEY}` },
    { status: 200, text: `not json ${API_KEY}` },
  ];
  for (const echo of echoes) {
    const server = await serve(() => echo);
    const embedder = await createHttpEmbedder(options(server, { maxRetries: 0 }));
    const error = await t.throwsAsync(embedder.embed(["x"], "query"), { instanceOf: ProviderError });
    assertNoKey(t, error);
  }
});
