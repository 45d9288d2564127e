import test from "ava";
import { createHttpReranker } from "../../core/models/http/create-http-reranker.js";
import { ProviderError } from "../../core/models/provider-error.js";
import type { RerankCandidate } from "../../core/models/reranker.js";
import {
  type FakeServer,
  type RecordedRequest,
  type Reply,
  startFakeServer,
} from "../helpers/fake-http-server.js";

const API_KEY = "co-test-0a1b2c3d4e5f60718293a4b5c6d7e8f9";

const servers: FakeServer[] = [];
test.after.always(async () => {
  await Promise.all(servers.map((server) => server.close()));
});
async function serve(handle: (request: RecordedRequest, index: number) => Reply): Promise<FakeServer> {
  const server = await startFakeServer(handle);
  servers.push(server);
  return server;
}

const candidates = (n: number): RerankCandidate[] =>
  Array.from({ length: n }, (_, i) => ({ id: `m${i}`, title: "", text: `passage ${i}` }));

/** Score = 1 / (1 + number in the passage), so input order is recoverable from the scores. */
const scoreOf = (passage: string) => 1 / (1 + Number(/\d+/.exec(passage)?.[0] ?? 0));
const bodyOf = (request: RecordedRequest) => request.body as Record<string, unknown>;
const listOf = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

/** TEI: [{index, score}], sorted by score descending (not input order). */
function teiReply(request: RecordedRequest): Reply {
  const texts = listOf(bodyOf(request).texts);
  const results = texts.map((text, index) => ({ index, score: scoreOf(text) }));
  return { json: results.sort((a, b) => b.score - a.score) };
}

/** Cohere / Jina: {results: [{index, relevance_score}]}, sorted by relevance. */
function cohereReply(request: RecordedRequest): Reply {
  const documents = listOf(bodyOf(request).documents);
  const results = documents.map((text, index) => ({ index, relevance_score: scoreOf(text) }));
  return { json: { id: "r1", results: results.sort((a, b) => b.relevance_score - a.relevance_score) } };
}

test("TEI: POST /rerank {query, texts}, scores come back in input order", async (t) => {
  const server = await serve(teiReply);
  const reranker = createHttpReranker({ url: server.url, api: "tei" });
  const scores = await reranker.rerank("frage", candidates(5));
  t.deepEqual(
    scores,
    candidates(5).map((c) => scoreOf(c.text)),
  );
  t.is(server.requests[0]?.path, "/rerank");
  t.like(bodyOf(server.requests[0] as RecordedRequest), {
    query: "frage",
    texts: candidates(5).map((c) => c.text),
  });
});

test("Cohere/Jina: POST /v1/rerank {model, query, documents, top_n} with the key", async (t) => {
  const server = await serve(cohereReply);
  const reranker = createHttpReranker({
    url: server.url,
    api: "cohere",
    model: "rerank-multilingual-v3.0",
    apiKey: API_KEY,
  });
  const scores = await reranker.rerank("frage", candidates(3));
  t.deepEqual(
    scores,
    candidates(3).map((c) => scoreOf(c.text)),
  );
  const [request] = server.requests;
  t.is(request?.path, "/v1/rerank");
  t.is(request?.headers.authorization, `Bearer ${API_KEY}`);
  t.like(bodyOf(request as RecordedRequest), { model: "rerank-multilingual-v3.0", query: "frage", top_n: 3 });
});

test("a base URL that already names a version gets /rerank appended", async (t) => {
  const server = await serve(cohereReply);
  const reranker = createHttpReranker({ url: `${server.url}/v2/`, api: "jina", model: "jina-reranker-v2" });
  await reranker.rerank("q", candidates(2));
  t.is(server.requests[0]?.path, "/v2/rerank");
});

test("auto: a server that does not know TEI's route is asked the Cohere way, and remembered", async (t) => {
  const server = await serve((request) =>
    request.path === "/rerank" ? { status: 404, text: "not found" } : cohereReply(request),
  );
  const reranker = createHttpReranker({ url: server.url, model: "bge-reranker-v2-m3" });
  t.deepEqual(
    await reranker.rerank("q", candidates(2)),
    candidates(2).map((c) => scoreOf(c.text)),
  );
  await reranker.rerank("q", candidates(2));
  t.deepEqual(
    server.requests.map((request) => request.path),
    ["/rerank", "/v1/rerank", "/v1/rerank"],
  );
});

test("more candidates than batchSize are sent in several requests, order kept", async (t) => {
  const server = await serve(teiReply);
  const reranker = createHttpReranker({ url: server.url, api: "tei", batchSize: 32 });
  const list = candidates(70);
  const scores = await reranker.rerank("q", list);
  t.is(server.requests.length, 3);
  // Each request is scored within its own batch; the batch offsets are restored by the reranker.
  t.deepEqual(
    scores,
    list.map((c) => scoreOf(c.text)),
  );
});

test("titles are sent on the line before the text", async (t) => {
  const server = await serve(teiReply);
  const reranker = createHttpReranker({ url: server.url, api: "tei" });
  await reranker.rerank("q", [{ id: "a", title: "Rechnung 2024", text: "Betrag 1" }]);
  t.deepEqual(bodyOf(server.requests[0] as RecordedRequest).texts, ["Rechnung 2024\nBetrag 1"]);
});

const MALFORMED: Array<[string, Reply]> = [
  ["a missing index", { json: [{ score: 0.5 }, { index: 1, score: 0.2 }] }],
  ["too few scores", { json: [{ index: 0, score: 0.5 }] }],
  [
    "a score that is not a number",
    {
      json: {
        results: [
          { index: 0, relevance_score: "high" },
          { index: 1, relevance_score: 1 },
        ],
      },
    },
  ],
  ["an object without results", { json: { scores: [1, 2] } }],
];
for (const [what, reply] of MALFORMED) {
  test(`an answer with ${what} is a bad_response`, async (t) => {
    const server = await serve(() => reply);
    const reranker = createHttpReranker({ url: server.url, api: "tei", retryBaseMs: 1 });
    const error = await t.throwsAsync(reranker.rerank("q", candidates(2)), { instanceOf: ProviderError });
    t.is(error?.reason, "bad_response");
  });
}

test("errors never show the API key", async (t) => {
  const server = await serve(() => ({ status: 401, json: { message: `invalid api token ${API_KEY}` } }));
  const reranker = createHttpReranker({ url: server.url, api: "cohere", model: "m", apiKey: API_KEY });
  const error = await t.throwsAsync(reranker.rerank("q", candidates(1)), { instanceOf: ProviderError });
  t.is(error?.reason, "unauthorized");
  t.false(`${String(error)} ${JSON.stringify(error)} ${error?.stack}`.includes(API_KEY.slice(8, 24)));
});

test("no candidates, no request", async (t) => {
  const server = await serve(teiReply);
  const reranker = createHttpReranker({ url: server.url, api: "tei" });
  t.deepEqual(await reranker.rerank("q", []), []);
  t.is(server.requests.length, 0);
});
