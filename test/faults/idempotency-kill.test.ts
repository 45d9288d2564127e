import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { type ServiceProcess, spawnService, waitForHealth } from "../helpers/service-process.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 45, item 1: an Idempotency-Key survives a kill -9 at any point of its keyed write. The
// service's database traffic runs through a TCP proxy; the test watches the database directly and,
// at the chosen point, freezes the proxy (the process cannot take another step) and kills the
// process. After a restart, the retry with the same key and body must return the write — its ids —
// and the write must exist exactly once: never a long 409, never twice.

let database: TestDatabase;
let proxy: TcpProxy;
let dataDir: string;
let service: ServiceProcess | undefined;

test.before(async () => {
  database = await createTestDatabase();
  proxy = await startTcpProxy("127.0.0.1", 5432);
  dataDir = await mkdtemp(join(tmpdir(), "memory-idempotency-kill-"));
});

test.after.always(async () => {
  service?.child.kill("SIGKILL");
  await service?.exited;
  proxy?.thaw();
  await proxy?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

type Point = "after the claim, before the write" | "after the write committed, before the answer";

test("kill -9 at each point of a keyed write (entry, batch, update_fact): the retry returns the write, which exists once", async (t) => {
  t.timeout(600_000);
  const viaProxy = new URL(database.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  const port = await freePort();
  const env = {
    DATABASE_URL: viaProxy.toString(),
    DATA_DIR: dataDir,
    PORT: String(port),
    GRPC_PORT: String(await freePort()),
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    RERANKER: "none",
    LOG_LEVEL: "warn",
  };
  const base = `http://127.0.0.1:${port}`;
  const start = async () => {
    proxy.thaw();
    service = spawnService(env);
    const started = service;
    await waitForHealth(base, 120_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${started.output()}`);
    });
  };
  const sql = database.db.sql;
  await start();
  const tenant = await createTenant(sql, { slug: `idem-kill-${Date.now()}`, name: "Kill", plan: "api" });
  const { token } = await issueApiToken(sql, { tenantId: tenant.id, name: "t", scopes: ["read", "write"] });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const post = (path: string, body: object, key: string) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": key },
      body: JSON.stringify(body),
    });

  /** Long enough that embedding takes a while (the claim is visible before anything is written). */
  const text = (seed: string) =>
    Array.from(
      { length: 60 },
      (_, i) => `${seed} paragraph ${i}: the harbour log notes tide ${i * 7} and wind ${i}.`,
    ).join(" ");

  const claimOpen = async (key: string) =>
    (
      await sql<{ n: number }[]>`
        select count(*)::int as n from idempotency_keys where tenant_id = ${tenant.id} and key = ${key} and response is null`
    )[0]?.n === 1;
  const titlesStored = async (titles: string[]) =>
    (
      await sql<{ n: number }[]>`
        select count(*)::int as n from memories where tenant_id = ${tenant.id} and title = any(${sql.array(titles)}::text[])`
    )[0]?.n ?? 0;

  /** Starts the request, waits for the point, freezes the database path and kills the process. */
  async function killAt(
    point: Point,
    key: string,
    send: () => Promise<Response>,
    written: () => Promise<boolean>,
  ) {
    const answer = send().catch(() => undefined);
    await waitFor(
      async () => {
        const open = await claimOpen(key);
        if (!open) return undefined;
        if (point === "after the write committed, before the answer" && !(await written())) return undefined;
        return true;
      },
      { what: `the keyed write to reach '${point}'`, timeoutMs: 60_000, intervalMs: 1 },
    );
    proxy.freeze();
    service?.child.kill("SIGKILL");
    await service?.exited;
    await answer;
    // What the database holds at the kill: the point actually reached.
    const stillOpen = await claimOpen(key);
    const wrote = await written();
    t.log(`${key}: killed ${point}: claim open ${stillOpen}, write committed ${wrote}`);
    t.true(stillOpen, "the kill came before the answer was stored");
    t.is(
      wrote,
      point === "after the write committed, before the answer",
      "the kill came at the chosen point",
    );
    await start();
  }

  /** Retries until the dead owner's claim is taken over (≤ 10 s without a heartbeat). */
  async function retry(
    send: () => Promise<Response>,
  ): Promise<{ status: number; body: unknown; waitedMs: number }> {
    const started = Date.now();
    for (;;) {
      const res = await send();
      if (res.status !== 409 || Date.now() - started > 30_000) {
        return { status: res.status, body: await res.json(), waitedMs: Date.now() - started };
      }
      await res.body?.cancel();
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  const points: Point[] = [
    "after the claim, before the write",
    "after the write committed, before the answer",
  ];
  for (const [n, point] of points.entries()) {
    // One entry.
    const title = `Entry ${n}`;
    const entry = { memoryType: "semantic", title, content: text(`entry-${n}`) };
    const sendEntry = () => post("/api/v1/memory/entries", entry, `entry-${n}`);
    await killAt(point, `entry-${n}`, sendEntry, async () => (await titlesStored([title])) > 0);
    const entryRetry = await retry(sendEntry);
    t.log(`entry-${n}: retry answered ${entryRetry.status} after ${entryRetry.waitedMs} ms of 409`);
    t.is(entryRetry.status, 201, JSON.stringify(entryRetry.body));
    const entryId = (entryRetry.body as { id: string; unchanged?: boolean }).id;
    t.not(
      (entryRetry.body as { unchanged?: boolean }).unchanged,
      true,
      "answered as written, not as a repeat",
    );
    t.is(await titlesStored([title]), 1, "the entry exists once");
    const again = await sendEntry();
    t.is(((await again.json()) as { id: string }).id, entryId, "a further retry replays the same answer");

    // A batch of five.
    const titles = Array.from({ length: 5 }, (_, i) => `Batch ${n}.${i}`);
    const batch = {
      memories: titles.map((tt, i) => ({
        memoryType: "episodic",
        title: tt,
        content: text(`batch-${n}-${i}`),
      })),
    };
    const sendBatch = () => post("/api/v1/memory/entries/batch", batch, `batch-${n}`);
    await killAt(point, `batch-${n}`, sendBatch, async () => (await titlesStored(titles)) > 0);
    const batchRetry = await retry(sendBatch);
    t.is(batchRetry.status, 200, JSON.stringify(batchRetry.body));
    const results = (batchRetry.body as { results: { status: number; memory?: { id: string } }[] }).results;
    // 201 each: written by this key, not 200 "unchanged" repeats.
    t.deepEqual(
      results.map((r) => r.status),
      [201, 201, 201, 201, 201],
      JSON.stringify(results),
    );
    t.true(
      results.every((r) => typeof r.memory?.id === "string"),
      JSON.stringify(results),
    );
    t.is(await titlesStored(titles), 5, "each entry of the batch exists once");

    // update_fact of the entry above.
    const update = {
      newTitle: `Entry ${n} v2`,
      newContent: text(`entry-${n}-v2`),
      updateReason: "corrected",
    };
    const sendUpdate = () => post(`/api/v1/memory/${entryId}/versions`, update, `update-${n}`);
    await killAt(point, `update-${n}`, sendUpdate, async () => (await titlesStored([update.newTitle])) > 0);
    const updateRetry = await retry(sendUpdate);
    t.is(updateRetry.status, 201, JSON.stringify(updateRetry.body));
    t.is((updateRetry.body as { oldMemoryId: string }).oldMemoryId, entryId);
    t.is(await titlesStored([update.newTitle]), 1, "one new version");
    const [versions] = await sql<{ n: number }[]>`
      select count(*)::int as n from memories m join memories o on o.lineage_id = m.lineage_id
      where o.id = ${entryId} and m.tenant_id = ${tenant.id}`;
    t.is(versions?.n, 2, "the lineage has the old and exactly one new version");
  }
});
