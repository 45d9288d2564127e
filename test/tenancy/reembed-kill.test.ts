import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { type FakeProviders, startFakeProviders } from "../helpers/fake-providers.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { type ServiceProcess, spawnService, waitForHealth } from "../helpers/service-process.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 18 "Embedding spaces": a workspace that switches embedder is re-embedded by a worker job;
// recall keeps the old space until the new one is complete, and nothing is lost if the job is
// killed midway. The service runs as a child process (`npm start`) and is SIGKILLed while the job
// is frozen mid-batch (the fake Cohere stops answering after a known number of requests); a restart
// resumes the job, and at the end every chunk in PostgreSQL has its vector in the new space.

const MEMORIES = 80;
/** The job migrates in batches of 50 and records progress after each; freeze it inside the second. */
const ANSWERED_BEFORE_KILL = 60;
const COHERE_SPACE = "cohere:embed-v4.0:1024";

let database: TestDatabase;
let fake: FakeProviders;
let dataDir: string;
const running: ServiceProcess[] = [];

test.before(async () => {
  database = await createTestDatabase();
  fake = await startFakeProviders();
  dataDir = await mkdtemp(join(tmpdir(), "memory-reembed-kill-"));
});

test.after.always(async () => {
  for (const service of running) service.child.kill("SIGKILL");
  await Promise.all(running.map((s) => s.exited));
  await fake?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("kill -9 during the re-embed after a key switch: old space serves recall, restart completes, nothing lost", async (t) => {
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    GRPC_PORT: String(await freePort()),
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    MASTER_KEY: randomBytes(32).toString("base64"),
    PROVIDER_ALLOW_PRIVATE_URLS: "true",
    // The service's own embedder: an OpenAI-compatible server (the fake), so start-up stays light.
    EMBEDDING_URL: `${fake.url}/local/v1`,
    EMBEDDING_MODEL: "nomic-embed-text",
    EMBEDDING_API_KEY: fake.validKey,
    RERANKER: "none",
    LOG_LEVEL: "warn",
  };
  const base = `http://127.0.0.1:${port}`;
  const start = async () => {
    const service = spawnService(env);
    running.push(service);
    await waitForHealth(base, 90_000);
    return service;
  };

  const first = await start();
  const tenant = await createTenant(database.db.sql, {
    slug: `kill-${Date.now()}`,
    name: "Kill",
    plan: "plus",
    // The setup writes faster than a plus token may (30/min); the limit is not under test here.
    limitsOverride: { requestsPerMinutePerToken: 100_000 },
  });
  const { token } = await issueApiToken(database.db.sql, {
    tenantId: tenant.id,
    name: "t",
    scopes: ["read", "write", "admin"],
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  /** The workspace's line in GET /api/health: its embedding space and any re-embed progress. */
  const healthSpace = async () => {
    const res = await fetch(`${base}/api/health`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { components: { name: string; status: string; detail: string }[] };
    return body.components.find((c) => c.name === "embedding_space");
  };

  const ids: string[] = [];
  for (let i = 0; i < MEMORIES; i++) {
    const stored = await api("POST", "/memory/entries", {
      memory_type: "semantic",
      title: `Notiz ${i}`,
      content: `Projektnotiz ${i}: Stichwort kennwort${i} gehört zum Vorgang ${i * 7}.`,
    });
    t.is(stored.status, 201, JSON.stringify(stored.json));
    ids.push(String(stored.json.id ?? stored.json.memoryId));
  }
  const sql = database.db.sql;
  const spaceCounts = async () =>
    Object.fromEntries(
      (
        await sql<{ space: string; n: number }[]>`
          select coalesce(embedding_space, '') as space, count(*)::int as n from memories
          where tenant_id = ${tenant.id} and status = 'indexed' group by 1`
      ).map((r) => [r.space, r.n]),
    ) as Record<string, number>;
  const before = await waitFor(
    async () => {
      const counts = await spaceCounts();
      return Object.values(counts).reduce((a, b) => a + b, 0) === MEMORIES ? counts : undefined;
    },
    { what: "every memory indexed in the service's space", timeoutMs: 60_000 },
  );
  const [oldSpace] = Object.keys(before);
  t.truthy(oldSpace);
  t.not(oldSpace, COHERE_SPACE);

  const created = await api("POST", "/keys", {
    provider: "cohere",
    apiKey: fake.validKey,
    baseUrl: fake.url,
  });
  t.is(created.status, 200, JSON.stringify(created.json));
  const keyId = String(created.json.id);
  t.is((await api("POST", `/keys/${keyId}/test`)).json.ok, true);

  // The fake Cohere answers the first ANSWERED_BEFORE_KILL re-embed requests (one per memory), then
  // none: the job is frozen inside its second batch, after its first progress record.
  fake.holdAfter("/v2/embed", ANSWERED_BEFORE_KILL);
  const sinceSwitch = fake.to("/v2/embed").length;
  const cohereQueries = () =>
    fake
      .to("/v2/embed")
      .slice(sinceSwitch)
      .filter((r) => (r.body as { input_type?: string }).input_type === "search_query").length;
  const chosen = await api("PUT", "/keys/selection", { embeddingKeyId: keyId });
  t.is(chosen.status, 200, JSON.stringify(chosen.json));
  t.like(chosen.json.reembed as object, { targetSpace: COHERE_SPACE, total: MEMORIES, done: 0 });

  const midway = await waitFor(
    async () => {
      const counts = await spaceCounts();
      const progress = (await api("GET", "/keys/selection")).json;
      const done = (progress.reembed as { done?: number } | null)?.done ?? 0;
      return counts[COHERE_SPACE] === ANSWERED_BEFORE_KILL && done >= 50 ? { counts, progress } : undefined;
    },
    { what: "the re-embed job frozen midway", timeoutMs: 60_000 },
  );
  t.is(midway.progress.activeEmbeddingSpace, oldSpace, "recall still searches the old space");
  t.like(midway.progress.reembed as object, { targetSpace: COHERE_SPACE, total: MEMORIES, done: 50 });
  t.like(await healthSpace(), {
    status: "ok",
    detail: `${oldSpace} (recall); re-embedding into ${COHERE_SPACE}: 50/${MEMORIES}`,
  });

  // Recall midway: answered from the old space (the query is embedded by the service's own model,
  // not by Cohere, whose endpoint would not answer now), and it finds memories on both sides.
  const queriesBefore = fake.to("/local/v1/embeddings").length;
  for (const i of [0, MEMORIES - 1]) {
    const recalled = await api("POST", "/memory/recall", { query: `kennwort${i}`, k: 5 });
    t.is(recalled.status, 200, JSON.stringify(recalled.json));
    const hits = recalled.json.hits as { memoryId: string }[];
    t.true(
      hits.some((h) => h.memoryId === ids[i]),
      `memory ${i} recalled midway`,
    );
  }
  t.true(fake.to("/local/v1/embeddings").length > queriesBefore, "query embedded in the old space");
  t.is(cohereQueries(), 0, "no query went to the new space");

  // kill -9 in the middle of the job.
  first.child.kill("SIGKILL");
  await first.exited;
  fake.holdAfter("/v2/embed", Number.POSITIVE_INFINITY);

  const second = await start();
  const done = await waitFor(
    async () => {
      const s = (await api("GET", "/keys/selection")).json;
      return s.reembed === null ? s : undefined;
    },
    { what: "the resumed re-embed to complete after the restart", timeoutMs: 90_000 },
  );
  t.is(done.activeEmbeddingSpace, COHERE_SPACE);
  t.like(await healthSpace(), { status: "ok", detail: `${COHERE_SPACE} (recall)` });
  t.deepEqual(await spaceCounts(), { [COHERE_SPACE]: MEMORIES }, "every memory is in the new space");

  // After the switch, recall embeds its query through Cohere.
  const recalled = await api("POST", "/memory/recall", { query: "kennwort7", k: 5 });
  t.is(recalled.status, 200);
  t.true((recalled.json.hits as { memoryId: string }[]).some((h) => h.memoryId === ids[7]));
  t.true(fake.to("/v2/embed").some((r) => (r.body as { input_type?: string }).input_type === "search_query"));

  second.child.kill("SIGTERM");
  t.is(await second.exited, 0);

  // Nothing lost: every chunk in PostgreSQL has exactly one vector in the new space, the old space is gone.
  const [chunks] = await sql<{ n: number }[]>`
    select count(*)::int as n from chunks where tenant_id = ${tenant.id}`;
  t.true((chunks?.n ?? 0) >= MEMORIES);
  const vectors = await openVectorStore(join(dataDir, "lancedb"));
  t.is(await vectors.count(tenant.id, COHERE_SPACE), chunks?.n ?? -1);
  t.deepEqual(await vectors.spaces(tenant.id), [COHERE_SPACE]);
});
