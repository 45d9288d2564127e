import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { enqueueJob } from "../../core/store/job-queue.js";
import { LifecycleService } from "../../gen/memory/v1/lifecycle_service_pb.js";
import { csrfTokenFor } from "../../lib/csrf-token.js";
import { graphClient, recallClient, storeMemory, testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { filesContaining, rowsInAnyVersion, scanEveryTable, tenantRows } from "./lifecycle-kit.js";

// DELETE /api/v1/memories/{id}: a lineage with several versions, chunks, vectors, edges, outbox
// events and a queued job is erased; then every table of the database (from information_schema) and
// every LanceDB version and file is searched for its ids and a marker from its content. A second
// tenant stays the same row for row.

let service: TestService;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    captureLogs: true,
    env: { VECTOR_PURGE_DELAY_MS: "0" },
  });
});

test.after.always(async () => {
  await service?.stop();
});

const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");

/** A text long enough for several chunks, with the marker in it. */
function longText(marker: string, topic: string): string {
  const sentences = Array.from(
    { length: 160 },
    (_, i) =>
      `Satz ${i} über ${topic} erwähnt ${i % 20 === 0 ? marker : "Nordlicht"} und weitere Einzelheiten des Projekts.`,
  );
  return sentences.join(" ");
}

function erase(tenant: TestTenant | { token: string }, id: string): Promise<Response> {
  return fetch(`${service.httpUrl}/api/v1/memories/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${tenant.token}` },
  });
}

async function seed(tenant: TestTenant, marker: string) {
  const graph = graphClient(service, tenant.token);
  const v1 = await storeMemory(service, tenant, {
    title: `Vertrag ${marker}`,
    content: longText(marker, "Verträge"),
  });
  const v2 = (
    await graph.updateFact({
      targetId: v1,
      newTitle: `Vertrag ${marker}`,
      newContent: longText(marker, "Fristen"),
    })
  ).newMemoryId;
  // The third version through REST with an Idempotency-Key: core keeps the answer (its memory id
  // and title, as protobuf bytes) for replays, which the erasure must remove too.
  const updated = await fetch(`${service.httpUrl}/api/v1/memory/${v2}/versions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${tenant.token}`,
      "idempotency-key": `erase-${marker}`,
    },
    body: JSON.stringify({ newTitle: `Vertrag ${marker}`, newContent: `Kurz: ${marker} gilt ab Mai.` }),
  });
  if (updated.status !== 201) throw new Error(`update answered ${updated.status}: ${await updated.text()}`);
  const v3 = ((await updated.json()) as { newMemoryId: string }).newMemoryId;
  const other = await storeMemory(service, tenant, {
    title: "Projekt Polar",
    content: "Polar startet im Mai.",
  });
  await graph.link({ fromId: v3, toId: other, relType: "RELATED_TO" });
  await graph.link({ fromId: other, toId: v3, relType: "DEPENDS_ON" });
  return { versions: [v1, v2, v3], other };
}

test("erasing a lineage removes every trace of it from every table and every LanceDB version", async (t) => {
  const tenant = await service.createTenant({ scopes: ["read", "write", "admin"] });
  const bystander = await service.createTenant();
  const marker = `zqx${letters(10)}`;
  const { versions, other } = await seed(tenant, marker);
  // The bystander has a lineage of its own, with a link.
  const b1 = await storeMemory(service, bystander, {
    title: "Andere Firma",
    content: longText("Eisbär", "Logistik"),
  });
  const b2 = await storeMemory(service, bystander, {
    title: "Lager Süd",
    content: "Lager Süd öffnet im Juni.",
  });
  await graphClient(service, bystander.token).link({ fromId: b1, toId: b2, relType: "RELATED_TO" });

  const sql = service.storage.db.sql;
  // A pending job that names a version (a retry of its indexing, due later).
  await enqueueJob(
    sql,
    "index-memory",
    { tenantId: tenant.tenantId, memoryId: versions[0] },
    {
      jobKey: `index-memory:${versions[0]}`,
      runAt: new Date(Date.now() + 3_600_000),
    },
  );
  const chunkIds = (
    await sql<{ id: string }[]>`select id from chunks where memory_id = any(${versions}::uuid[])`
  ).map((r) => r.id);
  const edgeIds = (
    await sql<{ id: string }[]>`
      select id from edges where from_id = any(${versions}::uuid[]) or to_id = any(${versions}::uuid[])`
  ).map((r) => r.id);
  const [lineage] = await sql<
    { lineage_id: string }[]
  >`select lineage_id from memories where id = ${versions[0] ?? ""}`;
  const [lexeme] = await sql<
    { word: string }[]
  >`select word from ts_stat(${`select to_tsvector('german', '${marker}')`})`;
  const [events] = await sql<{ n: number }[]>`
    select count(*)::int as n from outbox where tenant_id = ${tenant.tenantId} and payload::text like ${`%${versions[0]}%`}`;
  t.true(chunkIds.length >= 5, `the lineage has several chunks (${chunkIds.length})`);
  t.true(edgeIds.length >= 6, "links in both directions plus SUPERSEDES/SUPERSEDED_BY");
  t.true((events?.n ?? 0) > 0, "an undelivered outbox event names the lineage");
  const vectorsBefore = await rowsInAnyVersion(service.storage.vectors, tenant.tenantId, versions);
  t.true(vectorsBefore.hits > 0, "the vectors are in LanceDB before");
  // The scan sees the lineage everywhere it is before the erasure (so its zero hits after mean something).
  const seenBefore = new Set(
    (
      await scanEveryTable(sql, [
        lineage?.lineage_id ?? "",
        ...versions,
        ...chunkIds,
        marker,
        lexeme?.word ?? marker,
      ])
    ).hits.map((h) => h.table),
  );
  // The lexeme's statistics are in bm25_term_stats once compacted, in bm25_stats_delta until then.
  t.true(seenBefore.has("public.bm25_term_stats") || seenBefore.has("public.bm25_stats_delta"));
  for (const table of ["memories", "chunks", "edges", "outbox"]) {
    t.true(seenBefore.has(`public.${table}`), `the scan finds the lineage in ${table} before`);
  }
  t.true(seenBefore.has("graphile_worker._private_jobs"), "and its queued job");
  t.true(seenBefore.has("public.idempotency_keys"), "and the kept answer of an idempotent write (bytea)");
  const bystanderBefore = await tenantRows(sql, bystander.tenantId);
  // Statistics count current rows: the lineage's current chunks and current edges.
  const [current = { chunks: 0, edges: 0 }] = await sql<{ chunks: number; edges: number }[]>`
    select (select count(*)::int from chunks where memory_id = any(${versions}::uuid[]) and valid_to is null) as chunks,
           (select count(*)::int from edges where (from_id = any(${versions}::uuid[]) or to_id = any(${versions}::uuid[]))
              and valid_to is null) as edges`;
  const statsBefore = await recallClient(service, tenant.token).getStats({});

  // Scope, unknown and malformed ids.
  const reader = await tenant.issueToken(["read", "write"], "no admin");
  t.is((await erase(reader, versions[1] ?? "")).status, 403);
  t.is((await erase(tenant, "6f1c7a43-0000-4000-8000-000000000000")).status, 404);
  t.is((await erase(tenant, "not-a-uuid")).status, 400);
  t.is((await erase(bystander, versions[1] ?? "")).status, 404, "another tenant's id is unknown");

  // Any version's id names the lineage.
  const res = await erase(tenant, versions[1] ?? "");
  t.is(res.status, 200);
  t.deepEqual(await res.json(), {
    erased: true,
    title: `Vertrag ${marker}`,
    versions: 3,
    chunks: chunkIds.length,
    edges: edgeIds.length,
  });

  // At once: recall, list_recent, relations, stats no longer show it.
  const recall = recallClient(service, tenant.token);
  const hits = (await recall.recall({ query: marker, k: 20 })).hits;
  t.false(hits.some((h) => versions.includes(h.memoryId)));
  const recent = await recall.listRecent({ k: 50 });
  t.false(recent.items.some((i) => versions.includes(i.id)));
  const relations = await graphClient(service, tenant.token).listRelations({ memoryId: other });
  t.deepEqual([...relations.outgoing, ...relations.incoming].length, 0);
  const statsAfter = await recall.getStats({});
  t.is(statsAfter.memories, statsBefore.memories - 1n);
  t.is(statsAfter.chunks, statsBefore.chunks - BigInt(current.chunks));
  t.is(statsAfter.edges, statsBefore.edges - BigInt(current.edges));
  // A retry after success: the id names nothing any more.
  t.is((await erase(tenant, versions[1] ?? "")).status, 404);

  // The worker purges old LanceDB versions, jobs and dead tuples (VECTOR_PURGE_DELAY_MS=0 here).
  await waitFor(
    () =>
      service.logLines.some((l) => l.includes("erased data purged") && l.includes(tenant.tenantId)) ||
      undefined,
    { timeoutMs: 60_000, what: "the purge job" },
  );

  const needles = [
    lineage?.lineage_id ?? "",
    ...versions,
    ...chunkIds,
    ...edgeIds,
    marker,
    ...(lexeme ? [lexeme.word] : []),
  ];
  const erasure = await sql<{ target: string; details: Record<string, unknown> }[]>`
    select target, details from audit_log where tenant_id = ${tenant.tenantId} and action = 'memory.erased'`;
  t.is(erasure.length, 1, "one audit entry");
  t.is(erasure[0]?.target, lineage?.lineage_id, "it names the lineage id");
  t.false(JSON.stringify(erasure).includes(marker), "and never the content");
  const { hits: found, tables } = await scanEveryTable(
    sql,
    needles,
    (table, row) => table === "public.audit_log" && row.includes("memory.erased"),
  );
  t.true(tables.includes("public.memories") && tables.some((n) => n.startsWith("graphile_worker.")));
  t.deepEqual(found, [], "no table holds an id of the lineage or its marker");

  const vectorsAfter = await rowsInAnyVersion(service.storage.vectors, tenant.tenantId, versions);
  t.is(vectorsAfter.hits, 0, "no version of the vector table has a row of the lineage");
  t.is(
    vectorsAfter.physicalRows - vectorsAfter.deletedRows,
    vectorsAfter.liveRows,
    "data files hold no deleted row but the purge's placeholder",
  );
  t.true(vectorsAfter.deletedRows <= 1);
  t.deepEqual(await filesContaining(service.storage.vectors.uri, needles), []);

  // The bystander is untouched, row for row; the other memory of the tenant is still found.
  t.deepEqual(await tenantRows(sql, bystander.tenantId), bystanderBefore);
  t.true((await recall.recall({ query: "Polar startet", k: 5 })).hits.some((h) => h.memoryId === other));
});

test("EraseMemory over gRPC: the same operation, NOT_FOUND once erased, PERMISSION_DENIED without admin", async (t) => {
  const tenant = await service.createTenant({ scopes: ["read", "write", "admin"] });
  const id = await storeMemory(service, tenant, { title: "Kurz", content: "Eine kurze Notiz." });
  const client = (token: string) =>
    createClient(
      LifecycleService,
      createGrpcTransport({
        baseUrl: service.grpcUrl,
        interceptors: [
          (next) => (req) => {
            req.header.set("authorization", `Bearer ${token}`);
            return next(req);
          },
        ],
      }),
    );
  const reader = await tenant.issueToken(["read", "write"], "no admin");
  await t.throwsAsync(client(reader.token).eraseMemory({ id }), {
    instanceOf: ConnectError,
    message: /admin|scope/i,
  });
  const res = await client(tenant.token).eraseMemory({ id });
  t.like(res, { erased: true, versions: 1, chunks: 1, edges: 0 });
  const again = await t.throwsAsync(client(tenant.token).eraseMemory({ id }), { instanceOf: ConnectError });
  t.is(again?.code, Code.NotFound);
  const malformed = await t.throwsAsync(client(tenant.token).eraseMemory({ id: "x" }), {
    instanceOf: ConnectError,
  });
  t.is(malformed?.code, Code.InvalidArgument);
});

test("DELETE /api/memories/{id} (the dashboard's session, ADR 0452): a dry run names what would go, then the erasure; tokens are refused", async (t) => {
  const tenant = await service.createTenant({ scopes: ["read", "write", "admin"] });
  const id = await storeMemory(service, tenant, {
    title: "Notiz Session",
    content: "Eine Notiz im Dashboard.",
  });
  const other = await storeMemory(service, tenant, { title: "Nachbar", content: "Bleibt stehen." });
  await graphClient(service, tenant.token).link({ fromId: id, toId: other, relType: "RELATED_TO" });
  const cookie = await createSessionCookie(service, tenant.tenantId);
  const csrf = csrfTokenFor(cookie.split("=")[1] ?? "");
  const del = (query: string, headers: Record<string, string>) =>
    fetch(`${service.httpUrl}/api/memories/${id}${query}`, { method: "DELETE", headers });

  // A dry run: the counts and title, nothing removed.
  const dry = await del("?dryRun=true", { cookie, "x-csrf-token": csrf });
  t.is(dry.status, 200);
  t.deepEqual(await dry.json(), { erased: false, title: "Notiz Session", versions: 1, chunks: 1, edges: 2 });
  const still = await fetch(`${service.httpUrl}/api/v1/memory/${id}/versions`, {
    headers: { authorization: `Bearer ${tenant.token}` },
  });
  t.is(still.status, 200);

  // A bearer token is told to use /api/v1; a cross-site request without the CSRF token is refused.
  t.is((await del("", { authorization: `Bearer ${tenant.token}` })).status, 401);
  t.is(
    (await del("", { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" })).status,
    403,
  );
  t.is((await del("?dryRun=maybe", { cookie, "x-csrf-token": csrf })).status, 400);

  const done = await del("", { cookie, "x-csrf-token": csrf });
  t.is(done.status, 200);
  t.deepEqual(await done.json(), { erased: true, title: "Notiz Session", versions: 1, chunks: 1, edges: 2 });
  t.is((await del("", { cookie, "x-csrf-token": csrf })).status, 404);
});
