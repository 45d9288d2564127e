import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { type ServiceProcess, spawnService, waitForHealth } from "../helpers/service-process.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";

// Issue 15 "Suites": SIGSTOP of the real server process (a frozen VM, a debugger, a swapped-out
// host). Clients with a deadline time out cleanly; after SIGCONT the same process answers normally,
// also the requests that were sent while it was frozen.

let database: TestDatabase;
let dataDir: string;
let service: ServiceProcess | undefined;

test.before(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), "memory-sigstop-"));
});

test.after.always(async () => {
  if (service) {
    service.child.kill("SIGCONT");
    service.child.kill("SIGKILL");
    await service.exited;
  }
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test("SIGSTOP: clients time out cleanly; SIGCONT: the same process serves again, queued requests included", async (t) => {
  // Spawns and restarts whole services: minutes on a loaded machine.
  t.timeout(300_000);
  const port = await freePort();
  service = spawnService({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    GRPC_PORT: String(await freePort()),
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    RERANKER: "none",
    LOG_LEVEL: "warn",
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, 90_000);
  const sql = database.db.sql;
  const tenant = await createTenant(sql, { slug: `stop-${Date.now()}`, name: "Stop", plan: "api" });
  const { token } = await issueApiToken(sql, { tenantId: tenant.id, name: "t", scopes: ["read", "write"] });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const store = (i: number, timeoutMs: number) =>
    fetch(`${base}/api/v1/memory/entries`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        memoryType: "semantic",
        title: `frozen ${i}`,
        content: `Note ${i} about the frozen process.`,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  t.is((await store(0, 30_000)).status, 201);

  const pid = service.child.pid ?? 0;
  process.kill(pid, "SIGSTOP");
  let continued = false;
  try {
    // A client with a 1.5 s deadline gets its own timeout, not a hang and not a broken answer.
    const started = Date.now();
    const outcome = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1500) }).then(
      (r) => `status ${r.status}`,
      (error: unknown) => (error as { name?: string }).name,
    );
    t.is(outcome, "TimeoutError");
    t.true(Date.now() - started < 5000);
    // A patient client's write waits in the kernel's queue while the process is frozen.
    const patient = store(1, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    process.kill(pid, "SIGCONT");
    continued = true;
    t.is((await patient).status, 201, "the write sent while frozen is answered after SIGCONT");
  } finally {
    if (!continued) process.kill(pid, "SIGCONT");
  }
  await waitForHealth(base, 10_000);
  t.is((await store(2, 30_000)).status, 201);
  const recall = await fetch(`${base}/api/memory/recall`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query: "frozen process note" }),
    signal: AbortSignal.timeout(30_000),
  });
  t.is(recall.status, 200);
  t.is(((await recall.json()) as { hits: unknown[] }).hits.length, 3);
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from memories where tenant_id = ${tenant.id} and status = 'indexed'`;
  t.is(row?.n, 3, "each write stored once");
  t.is(service.child.exitCode, null, "the same process still runs");
});
