import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Code } from "@connectrpc/connect";
import test from "ava";
import { vectorTableName } from "../../core/vectors/vector-table-name.js";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import {
  embeddingsReply,
  type FakeServer,
  type Reply,
  startFakeServer,
} from "../helpers/fake-http-server.js";
import { type TestService, waitFor } from "../helpers/test-service.js";
import {
  expectFailure,
  ingestClient,
  longGermanText,
  memoriesTitled,
  readChunks,
  readMemory,
  startIngestService,
} from "./ingest-test-kit.js";

// Spec "States and transitions": a memory service error leaves the entry marked failed and answers
// ingest_failed (provider errors: provider_error); no success is ever faked. The embedder here is the
// real OpenAI-compatible HTTP provider, pointed at a local fake whose answers each test scripts.

const DIM = 16;
let service: TestService;
let embeddings: FakeServer;
// What the fake answers, decided per request body; tests swap it (they run one at a time: test.serial).
let answer: (inputs: readonly string[]) => Reply = (inputs) => ({ json: embeddingsReply(inputs, DIM) });

test.before(async () => {
  embeddings = await startFakeServer((request) => {
    const body = request.body as { input?: string[] };
    return answer(body.input ?? []);
  });
  service = await startIngestService({
    env: {
      EMBEDDING_PROVIDER: "http",
      EMBEDDING_URL: `${embeddings.url}/v1`,
      EMBEDDING_MODEL: "fake-embedder",
      EMBEDDING_DIM: String(DIM),
    },
  });
});

test.after.always(async () => {
  await service?.stop();
  await embeddings?.close();
});

test.afterEach.always(() => {
  answer = (inputs) => ({ json: embeddingsReply(inputs, DIM) });
});

test.serial("the configured HTTP embedder indexes through the fake server", async (t) => {
  const tenant = await service.createTenant();
  const { memory } = await ingestClient(service, tenant.token).storeMemory({ content: "Alles in Ordnung." });
  t.is(memory?.status, IndexStatus.INDEXED);
  t.is(memory?.embeddingProvider, `http:fake-embedder:${DIM}`);
  t.is(await service.storage.vectors.count(tenant.tenantId, `http:fake-embedder:${DIM}`), 1);
});

test.serial(
  "an embedding provider answering 500 fails store_memory with provider_error; the entry stays failed",
  async (t) => {
    const tenant = await service.createTenant();
    answer = () => ({ status: 500, json: { error: "model crashed" } });
    const failure = await expectFailure(
      t,
      ingestClient(service, tenant.token).storeMemory({
        title: "Kaputt",
        content: "Das Modell ist abgestürzt.",
      }),
      Code.Unavailable,
    );
    t.is(failure.reason, "provider_error");
    const id = failure.metadata.memory_id ?? "";
    t.regex(failure.message, new RegExp(id));
    const row = await readMemory(service, id);
    t.is(row?.status, "failed");
    t.regex(row?.status_detail ?? "", /provider_error/);
    t.is((await readChunks(service, id)).length, 0);
    t.is(await service.storage.vectors.count(tenant.tenantId, `http:fake-embedder:${DIM}`), 0);
    // A failed memory does not count against the quota, and storing it again is a fresh attempt.
    answer = (inputs) => ({ json: embeddingsReply(inputs, DIM) });
    const retry = await ingestClient(service, tenant.token).storeMemory({
      title: "Kaputt",
      content: "Das Modell ist abgestürzt.",
    });
    t.is(retry.memory?.status, IndexStatus.INDEXED);
    t.not(retry.memory?.memoryId, id);
    t.is(retry.memory?.unchanged, undefined);
    t.is(retry.memory?.quota?.memoriesUsed, 1n);
  },
);

test.serial("a failed upload keeps the old document current", async (t) => {
  const tenant = await service.createTenant();
  const client = ingestClient(service, tenant.token);
  const old = await client.uploadDocument({ title: "Preisliste", content: "Der Kaffee kostet 2 Euro." });
  answer = () => ({ status: 503, text: "overloaded" });
  const failure = await expectFailure(
    t,
    client.uploadDocument({ title: "Preisliste", content: "Der Kaffee kostet 3 Euro." }),
    Code.Unavailable,
  );
  t.is(failure.reason, "provider_error");
  const rows = await memoriesTitled(service, tenant.tenantId, "Preisliste");
  t.deepEqual(
    rows.map((r) => [r.id, r.status, r.valid_to]),
    [
      [old.memory?.memoryId, "indexed", null],
      [failure.metadata.memory_id, "failed", null],
    ],
  );
});

test.serial("a LanceDB write failure fails with ingest_failed and leaves the memory failed", async (t) => {
  const tenant = await service.createTenant();
  // A plain file where the tenant's table directory would go: LanceDB cannot create the table.
  const table = vectorTableName(tenant.tenantId, `http:fake-embedder:${DIM}`);
  await writeFile(join(service.storage.vectors.uri, `${table}.lance`), "not a table");
  const failure = await expectFailure(
    t,
    ingestClient(service, tenant.token).storeMemory({ title: "Platte voll", content: "Kein Platz mehr." }),
    Code.Internal,
  );
  t.is(failure.reason, "ingest_failed");
  const row = await readMemory(service, failure.metadata.memory_id ?? "");
  t.is(row?.status, "failed");
  t.regex(row?.status_detail ?? "", /ingest_failed/);
  // PostgreSQL kept the chunks (the source of truth), never marked as having a vector.
  t.true((await readChunks(service, row?.id ?? "")).every((c) => !c.vector_stored));
});

test.serial(
  "a batch entry the provider refuses (400) fails alone; the other entries are stored",
  async (t) => {
    // StoreMemories' entries reach the HTTP provider merged into one request (coalesce-embed-calls.ts):
    // a refusal that one text can cause is tried per entry, so one bad entry does not fail the batch.
    const tenant = await service.createTenant();
    answer = (inputs) =>
      inputs.some((input) => input.includes("Giftiger Text"))
        ? { status: 400, json: { error: { message: "input rejected" } } }
        : { json: embeddingsReply(inputs, DIM) };
    const { results } = await ingestClient(service, tenant.token).storeMemories({
      memories: [
        { title: "Gut eins", content: "Der Wasserhahn tropft seit Montag." },
        { title: "Schlecht", content: "Giftiger Text, den der Anbieter ablehnt." },
        { title: "Gut zwei", content: "Die Heizung läuft wieder." },
      ],
    });
    t.deepEqual(
      results.map((r) => r.outcome.case),
      ["memory", "error", "memory"],
    );
    const refused = results[1]?.outcome.case === "error" ? results[1].outcome.value : undefined;
    t.is(refused?.info?.reason, "provider_error");
    for (const i of [0, 2]) {
      const memory = results[i]?.outcome.case === "memory" ? results[i].outcome.value : undefined;
      t.is(memory?.status, IndexStatus.INDEXED);
    }
    t.is(await service.storage.vectors.count(tenant.tenantId, `http:fake-embedder:${DIM}`), 2);
    t.is((await memoriesTitled(service, tenant.tenantId, "Schlecht"))[0]?.status, "failed");
  },
);

test.serial("a queued document whose provider refuses it (400) is marked failed by the worker", async (t) => {
  const tenant = await service.createTenant();
  answer = () => ({ status: 400, json: { error: "input too long" } });
  const response = await ingestClient(service, tenant.token).ingestDocument({
    title: "Abgelehnt",
    content: "Dieses Dokument wird vom Anbieter abgelehnt.",
  });
  t.is(response.status, IndexStatus.QUEUED);
  const row = await waitFor(
    async () => {
      const r = await readMemory(service, response.documentId);
      return r?.status === "queued" ? undefined : r;
    },
    { what: "the worker to give up on the document", timeoutMs: 30_000 },
  );
  t.is(row.status, "failed");
  t.regex(row.status_detail ?? "", /provider_error.*rejected/);
});

test.serial("a retryable provider outage is retried by the queue with backoff, then indexed", async (t) => {
  const tenant = await service.createTenant();
  // The provider retries 3 times itself (4 requests); the 5th request belongs to the job's 2nd attempt.
  let requests = 0;
  answer = (inputs) => {
    requests++;
    return requests <= 4 ? { status: 502, text: "bad gateway" } : { json: embeddingsReply(inputs, DIM) };
  };
  const { memory } = await ingestClient(service, tenant.token).storeMemory({
    title: "Geduld",
    content: longGermanText(50, "Geduld"),
  });
  t.is(memory?.status, IndexStatus.QUEUED);
  const row = await waitFor(
    async () => {
      const r = await readMemory(service, memory?.memoryId ?? "");
      return r?.status === "queued" ? undefined : r;
    },
    { what: "the job's second attempt", timeoutMs: 60_000 },
  );
  t.is(row.status, "indexed");
  t.true(requests >= 5);
  // The job completes (and leaves the queue) after its second attempt succeeded.
  await waitFor(
    async () => {
      const jobs = await service.storage.db.sql`
        select 1 from graphile_worker.jobs where key = ${`index-memory:${row.id}`}`;
      return jobs.length === 0 ? true : undefined;
    },
    { what: "the job to leave the queue" },
  );
  t.pass();
});
