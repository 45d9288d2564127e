import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { type ServiceProcess, spawnService, waitForHealth } from "../helpers/service-process.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 15 "Suites": kill -9 of the service during inline ingest and during async (worker) ingest.
// After each restart every acknowledged write is present exactly once, every queued document is
// indexed within 60 s, and every indexed memory has exactly one LanceDB row per chunk.

let database: TestDatabase;
let dataDir: string;
const running: ServiceProcess[] = [];

test.before(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), "memory-service-kill-"));
});

test.after.always(async () => {
  for (const service of running) service.child.kill("SIGKILL");
  await Promise.all(running.map((s) => s.exited));
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("kill -9 during inline and during worker ingest: acknowledged writes survive once, fully indexed", async (t) => {
  // Spawns and restarts whole services: minutes on a loaded machine.
  t.timeout(400_000);
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    GRPC_PORT: String(await freePort()),
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
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
  const kill9 = async (service: ServiceProcess) => {
    service.child.kill("SIGKILL");
    await service.exited;
  };
  const sql = database.db.sql;
  const tenant = await createTenant(sql, {
    slug: `kill9-${Date.now()}`,
    name: "Kill 9",
    plan: "api",
    limitsOverride: { requestsPerMinutePerToken: 100_000 },
  });
  const { token } = await issueApiToken(sql, { tenantId: tenant.id, name: "t", scopes: ["read", "write"] });
  const post = (path: string, body: unknown) =>
    fetch(`${base}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });

  // 1. Inline writes from 4 writers; the process dies while some are in flight.
  let service = await start();
  const acknowledged = new Map<string, string>();
  let n = 0;
  let writing = true;
  const writer = async () => {
    while (writing) {
      const i = n++;
      const title = `inline ${i}`;
      try {
        const res = await post("/memory/entries", {
          memoryType: "semantic",
          title,
          content: `Inline fact number ${i}: the kill test stores it before the crash.`,
        });
        if (res.status === 201) acknowledged.set(title, ((await res.json()) as { id: string }).id);
      } catch {
        // The connection died with the process: not acknowledged.
      }
    }
  };
  const writers = Array.from({ length: 4 }, writer);
  await waitFor(() => (acknowledged.size >= 20 ? true : undefined), { timeoutMs: 60_000, what: "20 writes" });
  await kill9(service);
  writing = false;
  await Promise.all(writers);
  t.true(acknowledged.size >= 20);

  // 2. Documents for the worker; the process dies while the worker indexes them.
  service = await start();
  const queued: string[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await post("/documents", {
      title: `Dokument ${i}`,
      content: `Abschnitt ${i}: Der Arbeiter indexiert dieses Dokument nach dem Absturz. `.repeat(220),
    });
    t.is(res.status, 202);
    queued.push(((await res.json()) as { documentId: string }).documentId);
  }
  await waitFor(
    async () => {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from chunks where memory_id = any(${sql.array(queued)}::uuid[])`;
      return (row?.n ?? 0) > 0 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 20, what: "the worker to start indexing" },
  );
  await kill9(service);

  // 3. Restart: queued documents indexed within 60 s (the dead worker's locks are released).
  service = await start();
  await waitFor(
    async () => {
      const rows = await sql<{ status: string }[]>`
        select status from memories where id = any(${sql.array(queued)}::uuid[])`;
      return rows.length === queued.length && rows.every((r) => r.status === "indexed") ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: "every queued document to be indexed after the restart" },
  );

  // Every acknowledged inline write: exactly one current version with its title, indexed.
  const titles = [...acknowledged.keys()];
  const rows = await sql<{ title: string; id: string; status: string }[]>`
    select title, id, status from memories
    where tenant_id = ${tenant.id} and title = any(${sql.array(titles)}::text[]) and valid_to is null`;
  t.is(rows.length, titles.length, "each acknowledged write present exactly once");
  for (const row of rows) {
    t.is(acknowledged.get(row.title), row.id);
    t.is(row.status, "indexed", row.title);
  }

  // Every indexed memory has one LanceDB row per chunk; LanceDB holds no row without its chunk.
  const vectors = await openVectorStore(join(dataDir, "lancedb"));
  t.teardown(() => vectors.close());
  const [space] = await sql<{ space: string }[]>`
    select embedding_space as space from memories where tenant_id = ${tenant.id} and status = 'indexed' limit 1`;
  const stored = await vectors.scan(tenant.id, space?.space ?? "");
  const chunks = await sql<{ id: string; memory_id: string; status: string; vector_stored: boolean }[]>`
    select c.id, c.memory_id, m.status, c.vector_stored from chunks c join memories m on m.id = c.memory_id
    where c.tenant_id = ${tenant.id}`;
  const inLance = new Map<string, number>();
  for (const row of stored) inLance.set(row.chunkId, (inLance.get(row.chunkId) ?? 0) + 1);
  const indexedChunks = chunks.filter((c) => c.status === "indexed");
  t.true(indexedChunks.length > 0);
  for (const chunk of indexedChunks) {
    t.true(chunk.vector_stored, `chunk ${chunk.id} of an indexed memory is marked stored`);
    t.is(inLance.get(chunk.id), 1, `chunk ${chunk.id} of an indexed memory has exactly one vector`);
  }
  const known = new Set(chunks.map((c) => c.id));
  t.deepEqual(
    stored.filter((r) => !known.has(r.chunkId)).map((r) => r.chunkId),
    [],
    "no LanceDB row without its chunk",
  );
  // A write cut off between its commit and its vectors (never acknowledged) is at most one per writer.
  const halfWritten = new Set(chunks.filter((c) => c.status !== "indexed").map((c) => c.memory_id));
  t.true(halfWritten.size <= 4, `${halfWritten.size} half-written memories`);
  t.log(
    `acknowledged inline ${acknowledged.size}, queued ${queued.length}, chunks ${chunks.length}, ` +
      `LanceDB rows ${stored.length}, unacknowledged half-written ${halfWritten.size}`,
  );
  // The writes cut off are completed by the sweep the worker schedules for 2.5 minutes after its
  // start (reconcile leaves younger memories alone): then PostgreSQL chunks = LanceDB rows.
  const restartedAt = Date.now();
  await waitFor(
    async () => {
      const [left] = await sql<{ n: number }[]>`
        select count(*)::int as n from memories where tenant_id = ${tenant.id} and status <> 'indexed'`;
      return left?.n === 0 ? true : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 2000, what: "the half-written memories to be completed" },
  );
  const [all] = await sql<
    { n: number }[]
  >`select count(*)::int as n from chunks where tenant_id = ${tenant.id}`;
  t.is(await vectors.count(tenant.id, space?.space ?? ""), all?.n ?? -1, "PostgreSQL chunks = LanceDB rows");
  t.log(
    `half-written memories completed ${Math.round((Date.now() - restartedAt) / 1000)} s after the checks`,
  );
  await kill9(service);
});
