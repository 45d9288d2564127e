import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { freePort } from "../helpers/free-port.js";
import { TEST_LEXICON_CACHE_DIR } from "../helpers/lexicon-cache.js";
import { type ServiceProcess, spawnApp, waitForHealth } from "../helpers/service-process.js";
import { createTestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// Issue 21 / docs/scaling.md "Proven on one machine": the three process kinds split and doubled —
// two core (apps/core.ts, WORKER=false), two gateways (apps/gateway.ts, CORE_URL = both cores: they
// route each workspace to one core, ADR 0380), two workers (apps/worker.ts) — on one PostgreSQL
// database and one LanceDB directory. Mixed traffic goes through both gateways; the workspace's calls
// land on one core; then one process of each kind is killed, the core the workspace's calls went to
// among them, and its traffic moves to the other core.

const REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

interface Proc {
  readonly name: string;
  readonly proc: ServiceProcess;
}

test("split deployment: 2 core + 2 gateway + 2 worker on one database and one LanceDB directory", async (t) => {
  t.timeout(300_000);
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "memory-split-"));
  const lancedbUri = join(dataDir, "lancedb");
  const procs: Proc[] = [];
  t.teardown(async () => {
    for (const { proc } of procs) proc.child.kill("SIGKILL");
    await Promise.all(procs.map(({ proc }) => proc.exited));
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const tenant = await createTenant(database.db.sql, {
    slug: `split-${process.pid}`,
    name: "Split deployment",
    plan: "api",
    limitsOverride: { requestsPerMinutePerToken: 100_000 },
  });
  const { token } = await issueApiToken(database.db.sql, {
    tenantId: tenant.id,
    name: "split test",
    scopes: ["read", "write", "admin"],
  });

  const shared = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: "4",
    LANCEDB_URI: lancedbUri,
    REDIS_URL,
    RATE_LIMIT_PREFIX: `split-${process.pid}`,
    LEXICON_CACHE_DIR: TEST_LEXICON_CACHE_DIR,
    LOG_LEVEL: "info",
  };
  const spawn = (name: string, entry: string, env: Record<string, string>) => {
    const proc = spawnApp(entry, { ...shared, DATA_DIR: join(dataDir, name), ...env });
    procs.push({ name, proc });
    return proc;
  };
  const corePorts = [await freePort(), await freePort()];
  const coreMetricsPorts = [await freePort(), await freePort()];
  const cores = corePorts.map((port, i) =>
    spawn(`core${i}`, "apps/core.ts", {
      GRPC_PORT: String(port),
      PORT: "0",
      WORKER: "false",
      METRICS_PORT: String(coreMetricsPorts[i]),
    }),
  );
  const gatewayPorts = [await freePort(), await freePort()];
  const gateways = gatewayPorts.map((port, i) =>
    spawn(`gateway${i}`, "apps/gateway.ts", {
      PORT: String(port),
      CORE_URL: corePorts.map((p) => `http://127.0.0.1:${p}`).join(","),
    }),
  );
  const workers = [0, 1].map((i) => spawn(`worker${i}`, "apps/worker.ts", { WORKER_CONCURRENCY: "2" }));
  const bases = gatewayPorts.map((p) => `http://127.0.0.1:${p}`);
  const [baseA = "", baseB = ""] = bases;
  await Promise.all(bases.map((b) => waitForHealth(b, 120_000)));
  for (const [i, core] of cores.entries()) {
    await waitFor(() => (/core .* listening/.test(core.output()) ? true : undefined), {
      timeoutMs: 120_000,
      what: `core${i} listening`,
    });
  }
  for (const [i, worker] of workers.entries()) {
    await waitFor(() => (/worker running/.test(worker.output()) ? true : undefined), {
      timeoutMs: 120_000,
      what: `worker${i} running`,
    });
  }
  t.truthy(gateways.length === 2);

  const api = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const other = (base: string) => (base === baseA ? baseB : baseA);

  // Mixed traffic, all at once from the first request on (a fresh tenant: the first vector writes of
  // both cores race to create the tenant's LanceDB table): inline entries through both gateways
  // (core writes their vectors), queued documents (the workers write theirs), recalls.
  const ENTRIES = 24;
  const DOCUMENTS = 12;
  const entryWrites = Array.from({ length: ENTRIES }, async (_, i) => {
    const base = bases[i % 2] ?? baseA;
    const res = await api(base, "POST", "/memory/entries", {
      title: `Fact ${i}`,
      content: `Split deployment fact number ${i}: the marker word is splitmarker${i}x and nothing else.`,
      memoryType: "semantic",
    });
    return { base, i, ...res };
  });
  const documentWrites = Array.from({ length: DOCUMENTS }, async (_, i) => {
    const base = bases[(i + 1) % 2] ?? baseA;
    const res = await api(base, "POST", "/documents", {
      title: `Handbook ${i}`,
      content: `${`Chapter ${i} of the split handbook explains queue number ${i}. `.repeat(40)}queuemarker${i}x`,
    });
    return { base, i, ...res };
  });
  const recalls = Array.from({ length: 6 }, (_, i) =>
    api(bases[i % 2] ?? baseA, "POST", "/memory/recall", { query: "split deployment fact", k: 5 }),
  );
  const [entries, documents, recallResults] = await Promise.all([
    Promise.all(entryWrites),
    Promise.all(documentWrites),
    Promise.all(recalls),
  ]);
  for (const e of entries) t.is(e.status, 201, `entry ${e.i}: ${JSON.stringify(e.body)}`);
  for (const d of documents) t.is(d.status, 202, `document ${d.i}: ${JSON.stringify(d.body)}`);
  for (const r of recallResults) t.is(r.status, 200);

  // Every acknowledged write is readable through the other gateway (and so the other core, often).
  for (const e of entries) {
    const id = String(e.body.memoryId);
    const res = await api(other(e.base), "GET", `/memory/${id}/relations`);
    t.is(res.status, 200, `entry ${e.i} through the other gateway`);
    const recall = await api(other(e.base), "POST", "/memory/recall", { query: `splitmarker${e.i}x`, k: 3 });
    const hits = (recall.body.hits ?? []) as { memoryId: string }[];
    t.true(
      hits.some((h) => h.memoryId === id),
      `entry ${e.i} recalled through the other gateway`,
    );
  }

  // Facts versioned through the gateway that did not write them: core updates old vectors' validity
  // in LanceDB while the workers append.
  const facts = entries.slice(0, 6);
  const updates = await Promise.all(
    facts.map((e) =>
      api(other(e.base), "POST", `/memory/${String(e.body.memoryId)}/versions`, {
        newTitle: `Fact ${e.i}`,
        newContent: `Split deployment fact number ${e.i}, corrected: the marker word is splitmarker${e.i}x revised.`,
      }),
    ),
  );
  for (const u of updates) t.is(u.status, 201, JSON.stringify(u.body));

  // Queued documents: all indexed, each exactly once.
  const documentIds = documents.map((d) => String(d.body.documentId));
  await waitFor(
    async () => {
      const [row] = await database.db.sql<{ pending: number }[]>`
        select count(*)::int as pending from memories
        where tenant_id = ${tenant.id} and id = any(${documentIds}::uuid[]) and status = 'queued'`;
      return row?.pending === 0 ? true : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 250, what: "every queued document indexed" },
  );
  const statuses = await database.db.sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from memories
    where tenant_id = ${tenant.id} and id = any(${documentIds}::uuid[]) group by status`;
  t.deepEqual(
    statuses.map((s) => [s.status, s.n]),
    [["indexed", DOCUMENTS]],
  );
  const created = await database.db.sql<{ document_id: string; n: number }[]>`
    select payload->>'documentId' as document_id, count(*)::int as n from outbox
    where tenant_id = ${tenant.id} and event = 'memory.created' and payload->>'documentId' = any(${documentIds})
    group by 1`;
  t.is(created.length, DOCUMENTS, "one memory.created event per document");
  t.true(
    created.every((c) => c.n === 1),
    `memory.created per document: ${JSON.stringify(created.map((c) => c.n))}`,
  );

  // No lost and no duplicated vector rows: PostgreSQL's chunk count = LanceDB's rows, chunk by chunk.
  const checkVectors = async () => {
    const chunks = await database.db.sql<{ id: string }[]>`
      select c.id from chunks c join memories m on m.tenant_id = c.tenant_id and m.id = c.memory_id
      where c.tenant_id = ${tenant.id} and m.status <> 'failed'`;
    const vectors = await openVectorStore(lancedbUri);
    try {
      const rows = (
        await Promise.all((await vectors.spaces(tenant.id)).map((s) => vectors.scan(tenant.id, s)))
      ).flat();
      const inLance = new Set(rows.map((r) => r.chunkId));
      const lost = chunks.filter((c) => !inLance.has(c.id)).length;
      return { chunks: chunks.length, rows: rows.length, distinct: inLance.size, lost };
    } finally {
      vectors.close();
    }
  };
  const counted = await checkVectors();
  t.log(`vectors after mixed traffic: ${JSON.stringify(counted)}`);
  t.is(counted.lost, 0, "no chunk without its vector row");
  t.is(counted.rows, counted.distinct, "no duplicated vector row");
  t.is(counted.rows, counted.chunks, "PostgreSQL chunk count = LanceDB rows");

  // The workspace's calls land on one core (its route's, ADR 0380), through either gateway and with
  // any of its tokens: core counts its gRPC calls by method (METRICS_PORT), so the recalls below must
  // all show on one core's count. A second token's first call may go elsewhere (the gateway learns
  // the token's workspace from that answer); its later calls follow the workspace.
  const recallsOnCore = async (i: number): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${coreMetricsPorts[i]}/metrics`);
    const text = await res.text();
    let n = 0;
    for (const line of text.split("\n")) {
      if (
        line.startsWith("memory_rpc_duration_seconds_count{") &&
        line.includes('method="memory.v1.RecallService/Recall"') &&
        line.includes('transport="grpc"')
      ) {
        n += Number(line.split(" ").at(-1));
      }
    }
    return n;
  };
  const { token: secondToken } = await issueApiToken(database.db.sql, {
    tenantId: tenant.id,
    name: "split test, second token",
    scopes: ["read"],
  });
  const recallWith = (base: string, bearer: string) =>
    fetch(`${base}/api/v1/memory/recall`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "split deployment fact", k: 3 }),
    }).then((r) => r.status);
  for (const base of bases) t.is(await recallWith(base, secondToken), 200, "the second token's first call");
  const recallsBefore = await Promise.all([0, 1].map(recallsOnCore));
  for (let i = 0; i < 8; i++) {
    for (const base of bases) {
      t.is(await recallWith(base, i % 2 === 0 ? token : secondToken), 200);
    }
  }
  const recallsAfter = await Promise.all([0, 1].map(recallsOnCore));
  const added = recallsAfter.map((n, i) => n - (recallsBefore[i] ?? 0));
  t.log(`recalls of the workspace by core: ${JSON.stringify(added)}`);
  const owner = added.indexOf(16);
  t.true(owner >= 0 && added.every((n, i) => i === owner || n === 0), `one core took them all: ${added}`);

  // Kill one of each (SIGKILL: no drain) — the core the workspace's calls go to — and keep using the
  // survivors.
  const deadCore = cores[owner];
  const liveCore = owner === 0 ? 1 : 0;
  for (const victim of [gateways[0], deadCore, workers[0]]) victim?.child.kill("SIGKILL");
  await Promise.all([gateways[0]?.exited, deadCore?.exited, workers[0]?.exited]);
  // No call fails because the core died: the surviving gateway finds it unreachable and sends the
  // workspace's calls to the next core in its order (the SDKs' retry of a 503 is not needed).
  const liveBefore = await recallsOnCore(liveCore);
  const first = await api(baseB, "POST", "/memory/recall", { query: "marker" });
  t.is(first.status, 200, `first call after the kill: ${JSON.stringify(first.body)}`);
  for (let i = 0; i < 5; i++) {
    const stored = await api(baseB, "POST", "/memory/entries", {
      title: `After the kill ${i}`,
      content: `Written after one process of each kind was killed: survivormarker${i}x.`,
      memoryType: "episodic",
    });
    t.is(stored.status, 201, JSON.stringify(stored.body));
    const recall = await api(baseB, "POST", "/memory/recall", { query: `survivormarker${i}x`, k: 3 });
    t.is(recall.status, 200);
    t.true(
      ((recall.body.hits ?? []) as { memoryId: string }[]).some((h) => h.memoryId === stored.body.memoryId),
    );
  }
  t.is(await recallsOnCore(liveCore), liveBefore + 6, "the workspace's recalls moved to the live core");
  const late = await api(baseB, "POST", "/documents", {
    title: "Late handbook",
    content: "Queued after the kill; the surviving worker indexes it. latemarker",
  });
  t.is(late.status, 202);
  await waitFor(
    async () => {
      const [row] = await database.db.sql<{ status: string }[]>`
        select status from memories where tenant_id = ${tenant.id} and id = ${String(late.body.documentId)}`;
      return row?.status === "indexed" ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: "the late document indexed by the surviving worker" },
  );
  const after = await checkVectors();
  t.is(after.lost, 0);
  t.is(after.rows, after.chunks);
});
