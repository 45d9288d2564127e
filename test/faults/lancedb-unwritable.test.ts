import { chmod, chown, cp, mkdtemp, readdir, rm } from "node:fs/promises";
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

// Issue 15 "Suites", amended by issue 45 item 5: the LanceDB directory becomes unwritable → the
// write answers a retryable 503 naming the failed memory (MCP -32006 with data.reason unavailable;
// docs/ingest.md "Failures") at once instead of hanging, the memory is `failed`, nothing of it is searchable, and what was stored
// before stays intact. Permissions do not bind root, so the service runs as `nobody` when the test
// runs as root; as another user it runs as that user.

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let database: TestDatabase;
let dataDir: string;
let service: ServiceProcess | undefined;

async function setMode(path: string, mode: number): Promise<void> {
  await chmod(path, mode);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await setMode(join(path, entry.name), mode);
  }
}

async function chownTree(path: string, uid: number): Promise<void> {
  await chown(path, uid, uid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid);
    else await chown(child, uid, uid);
  }
}

test.before(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), "memory-lancedb-ro-"));
  // The lexicon cache the other test services share, copied so `nobody` may read it: building the
  // lexicon from the dictionaries in this service too took it past its start deadline on a loaded
  // machine (180 s). Absent on a fresh machine: the service then builds it.
  await cp(TEST_LEXICON_CACHE_DIR, join(dataDir, "cache"), { recursive: true }).catch(() => undefined);
  if (asRoot) await chownTree(dataDir, NOBODY);
});

test.after.always(async () => {
  service?.child.kill("SIGKILL");
  await service?.exited;
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("an unwritable LanceDB directory: a retryable 503 at once, memory failed, earlier data intact", async (t) => {
  // Spawns and restarts whole services: minutes on a loaded machine.
  t.timeout(300_000);
  const port = await freePort();
  service = spawnService(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      GRPC_PORT: String(await freePort()),
      LEXICON_CACHE_DIR: join(dataDir, "cache"),
      RERANKER: "none",
      LOG_LEVEL: "warn",
    },
    asRoot ? { uid: NOBODY, gid: NOBODY } : {},
  );
  const base = `http://127.0.0.1:${port}`;
  // Slow on a loaded machine: the first start as nobody compiles the TypeScript into its own cache.
  const started = service;
  await waitForHealth(base, 180_000).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${started.output()}`);
  });
  const sql = database.db.sql;
  const tenant = await createTenant(sql, { slug: `ro-${Date.now()}`, name: "RO", plan: "api" });
  const { token } = await issueApiToken(sql, { tenantId: tenant.id, name: "t", scopes: ["read", "write"] });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const store = (title: string, content: string) =>
    fetch(`${base}/api/v1/memory/entries`, {
      method: "POST",
      headers,
      body: JSON.stringify({ memoryType: "semantic", title, content }),
      signal: AbortSignal.timeout(30_000),
    });

  const before = await store("Before", "The lighthouse keeper logs the tides every morning.");
  t.is(before.status, 201);
  const beforeId = ((await before.json()) as { id: string }).id;

  const lancedb = join(dataDir, "lancedb");
  await setMode(lancedb, 0o555);
  try {
    const started = Date.now();
    const refused = await store("During", "The harbour master counts the boats at dusk.");
    t.log(`answered ${refused.status} after ${Date.now() - started} ms`);
    t.is(refused.status, 503);
    // A storage fault, not a bad memory: retry shortly; the failed memory is named (docs/ingest.md).
    const body = (await refused.json()) as { error: string };
    t.regex(
      body.error,
      /vector store cannot be written right now \(storage not writable\); the memory is kept with status failed \(id [0-9a-f-]{36}\); retry shortly/,
    );
    const mcp = await fetch(`${base}/api/mcp/v1`, {
      method: "POST",
      headers: { ...headers, accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "service_store_memory",
          arguments: { title: "During MCP", content: "The ferry leaves at noon.", memory_type: "semantic" },
        },
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await mcp.json()) as { error?: { code: number; data?: { reason?: string } } };
    t.is(answer.error?.code, -32006);
    t.is(answer.error?.data?.reason, "unavailable");

    const rows = await sql<{ title: string; status: string; stored: number }[]>`
      select m.title, m.status,
             (select count(*)::int from chunks c where c.memory_id = m.id and c.vector_stored) as stored
      from memories m where m.tenant_id = ${tenant.id} order by m.created_at`;
    t.deepEqual(
      rows.map((r) => [r.title, r.status, r.stored > 0]),
      [
        ["Before", "indexed", true],
        ["During", "failed", false],
        ["During MCP", "failed", false],
      ],
    );
    // Recall still answers from what was stored before, and finds nothing of the failed writes.
    const recall = await fetch(`${base}/api/memory/recall`, {
      method: "POST",
      headers,
      body: JSON.stringify({ query: "harbour master boats lighthouse keeper" }),
    });
    t.is(recall.status, 200);
    const hits = ((await recall.json()) as { hits: { memoryId: string }[] }).hits;
    const ids = hits.map((h) => h.memoryId);
    t.true(ids.includes(beforeId), JSON.stringify(hits));
    t.is(ids.length, 1);
  } finally {
    await setMode(lancedb, 0o755);
  }
  const vectors = await openVectorStore(lancedb);
  t.teardown(() => vectors.close());
  const [space] = await sql<
    { s: string }[]
  >`select embedding_space as s from memories where id = ${beforeId}`;
  t.deepEqual(
    [...new Set((await vectors.scan(tenant.id, space?.s ?? "")).map((r) => r.memoryId))],
    [beforeId],
    "the earlier memory's vectors intact, none of the failed ones",
  );
  // Writable again: writes succeed again without a restart.
  t.is((await store("After", "The pilot boards the tanker at the outer buoy.")).status, 201);
});
