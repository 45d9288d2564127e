import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { CHUNK_SIZE } from "../../core/tenancy/stream-from-transaction.js";
import { PlanGateSchema } from "../../gen/memory/v1/errors_pb.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { graphClient, storeMemory, testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import {
  type ExportWorkspace,
  exportWorkspace,
  grpcExportChunks,
  joinChunks,
  parseCsv,
  restBundle,
  restExport,
  type TenantBundle,
} from "./export-helper.js";
import { cookieHeader } from "./sign-in-helper.js";

// GET /api/tenant/export (GDPR bundle, every plan) and GET /api/audit/export (CSV, pro and
// higher) through REST with a real session and through gRPC with x-session-token: content,
// formats, plan gate, retention window, credentials, size, and a client that leaves mid-stream.

let service: TestService;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { TRUST_PROXY: "true" },
  });
});

test.after.always(async () => {
  await service?.stop();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Two memories, a link between them, then an update_fact of the first. */
async function seedFacts(ws: ExportWorkspace) {
  const first = await storeMemory(service, ws, {
    title: "Kunde Nordlicht",
    content: "Nordlicht zahlt net 30.",
  });
  const second = await storeMemory(service, ws, { title: "Projekt Polar", content: "Polar startet im Mai." });
  const graph = graphClient(service, ws.token);
  await graph.link({ fromId: first, toId: second, relType: "RELATED_TO" });
  const updated = await graph.updateFact({
    targetId: first,
    newTitle: "Kunde Nordlicht",
    newContent: "Nordlicht zahlt net 45.",
    updateReason: "neuer Rahmenvertrag",
  });
  return { first, second, firstV2: updated.newMemoryId };
}

test("the tenant export holds every version, every edge (closed ones too) and the audit entries", async (t) => {
  const ws = await exportWorkspace(service, "api");
  const { first, second, firstV2 } = await seedFacts(ws);
  const res = await restExport(service, "tenant", cookieHeader(ws.session), "203.0.113.7");
  t.is(res.status, 200);
  t.is(res.headers.get("content-type"), "application/json; charset=utf-8");
  t.is(res.headers.get("content-disposition"), 'attachment; filename="tenant-export.json"');
  const bundle = (await res.json()) as TenantBundle;

  t.is(bundle.format, "memory-service-export/v1");
  t.regex(bundle.exportedAt, ISO);
  t.like(bundle.tenant, { id: ws.tenantId, slug: ws.slug, name: "Workspace", plan: "api" });
  t.regex(bundle.tenant.createdAt, ISO);
  t.is(bundle.auditRetentionDays, 730);
  t.is(
    Date.parse(bundle.exportedAt) - Date.parse(bundle.auditSince),
    730 * 86_400_000,
    "auditSince is exportedAt minus the plan's retention",
  );

  // Memories: both versions of the updated fact, one lineage, the old one closed where the new opens.
  t.deepEqual(
    bundle.memories.map((m) => m.id),
    [first, second, firstV2],
    "oldest first",
  );
  const [v1, other, v2] = bundle.memories;
  if (!v1 || !other || !v2) throw new Error("missing memories");
  t.deepEqual(Object.keys(v1), [
    "id",
    "lineageId",
    "kind",
    "memoryType",
    "title",
    "content",
    "source",
    "tags",
    "metadata",
    "status",
    "statusDetail",
    "updateReason",
    "validFrom",
    "validTo",
    "recordedAt",
    "createdAt",
    "updatedAt",
  ]);
  t.is(v1.lineageId, v2.lineageId);
  t.not(other.lineageId, v1.lineageId);
  t.like(v1, {
    kind: "entry",
    memoryType: "semantic",
    content: "Nordlicht zahlt net 30.",
    status: "indexed",
  });
  t.like(v2, { content: "Nordlicht zahlt net 45.", updateReason: "neuer Rahmenvertrag", validTo: null });
  t.is(v1.validTo, v2.validFrom, "the old version ends where the new one starts");
  for (const m of bundle.memories) {
    for (const at of [m.validFrom, m.recordedAt, m.createdAt, m.updatedAt]) t.regex(at, ISO);
    t.deepEqual(m.tags, []);
    t.deepEqual(m.metadata, {});
  }

  // Edges: the closed link of the old version, its copy on the new one, and the lineage pair.
  const edge = (relType: string, fromId: string, toId: string) =>
    bundle.edges.find((e) => e.relType === relType && e.fromId === fromId && e.toId === toId);
  const closed = edge("RELATED_TO", first, second);
  const closedInverse = edge("RELATED_TO", second, first);
  const current = edge("RELATED_TO", firstV2, second);
  const supersedes = edge("SUPERSEDES", firstV2, first);
  const supersededBy = edge("SUPERSEDED_BY", first, firstV2);
  t.is(bundle.edges.length, 6);
  t.truthy(closed?.validTo, "the old version's link is closed");
  t.is(closed?.validTo, v2.validFrom);
  t.truthy(closedInverse?.validTo);
  t.is(current?.validTo, null);
  t.is(current?.validFrom, v2.validFrom);
  t.truthy(edge("RELATED_TO", second, firstV2));
  t.is(supersedes?.validTo, null, "lineage edges never close");
  t.is(supersedes?.inverseEdgeId, supersededBy?.id);
  t.is(supersededBy?.inverseEdgeId, supersedes?.id);
  t.deepEqual(Object.keys(closed ?? {}), [
    "id",
    "relType",
    "fromId",
    "toId",
    "inverseEdgeId",
    "validFrom",
    "validTo",
    "createdAt",
  ]);

  // Audit: onboarding, and this export itself, last, with the user and the client IP.
  const actions = bundle.audit.map((a) => a.action);
  t.true(actions.includes("tenant.onboarded"));
  const exported = bundle.audit.at(-1);
  t.like(exported, {
    action: "tenant.exported",
    actorUserId: ws.userId,
    actorTokenId: null,
    target: ws.tenantId,
    ip: "203.0.113.7",
    details: { format: "memory-service-export/v1" },
  });
  t.deepEqual(bundle.counts, { memories: 3, edges: 6, audit: bundle.audit.length });
});

test("ExportTenant over gRPC with x-session-token streams the same bundle", async (t) => {
  const ws = await exportWorkspace(service, "free");
  const { first, second, firstV2 } = await seedFacts(ws);
  const chunks = await grpcExportChunks(service, "tenant", { "x-session-token": ws.session });
  const bundle = JSON.parse(joinChunks(chunks)) as TenantBundle;
  t.is(bundle.tenant.plan, "free");
  t.deepEqual(
    bundle.memories.map((m) => m.id),
    [first, second, firstV2],
  );
  t.is(bundle.edges.length, 6);
  t.deepEqual(bundle.counts, {
    memories: 3,
    edges: 6,
    audit: bundle.audit.length,
  });
  t.is(bundle.audit.at(-1)?.action, "tenant.exported");
  // The same export through REST sees the same data (plus one more tenant.exported entry).
  const rest = await restBundle(service, ws.session);
  t.deepEqual(rest.memories, bundle.memories);
  t.deepEqual(rest.edges, bundle.edges);
  t.deepEqual(rest.audit.slice(0, bundle.audit.length), bundle.audit);
});

test("exports need a session: an API token is 401 on REST and UNAUTHENTICATED on gRPC", async (t) => {
  const ws = await exportWorkspace(service, "pro");
  for (const which of ["tenant", "audit"] as const) {
    const withToken = await restExport(service, which, { authorization: `Bearer ${ws.token}` });
    t.is(withToken.status, 401, which);
    t.is(withToken.headers.get("www-authenticate"), 'Bearer realm="memory-service"');
    t.regex(((await withToken.json()) as { error: string }).error, /needs a signed-in session/);
    const without = await restExport(service, which, {});
    t.is(without.status, 401, `${which} without credentials`);
    const error = await t.throwsAsync(
      grpcExportChunks(service, which, { authorization: `Bearer ${ws.token}` }),
    );
    t.is(ConnectError.from(error).code, Code.Unauthenticated, which);
  }
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from audit_log
    where tenant_id = ${ws.tenantId} and action in ('tenant.exported', 'audit.exported')`;
  t.is(row?.n, 0, "a refused export records nothing");
});

test("audit CSV on a pro workspace: header, RFC 4180 quoting, formula guard, 90-day window", async (t) => {
  const ws = await exportWorkspace(service, "pro");
  const sql = service.storage.db.sql;
  const rows: [string, string, Record<string, string>, string][] = [
    ["test.outside", "too old", {}, "91 days"],
    ["test.inside", "just inside", {}, "89 days"],
    ["test.quoting", 'a "quoted", value\r\nwith a line break', { note: 'x, "y"' }, "3 days"],
    ["test.injection", '=HYPERLINK("http://evil.test","click")', {}, "2 days"],
    ["test.plus", "+1+1", {}, "2 days"],
    ["test.minus", "-2+3", {}, "2 days"],
    ["test.at", "@SUM(A1:A9)", {}, "2 days"],
    ["test.tab", "\t=1+1", {}, "2 days"],
  ];
  for (const [action, target, details, age] of rows) {
    await sql`
      insert into audit_log (tenant_id, actor_user_id, action, target, ip, details, created_at)
      values (${ws.tenantId}, ${ws.userId}, ${action}, ${target}, '198.51.100.9',
              ${sql.json(details)}, now() - ${age}::interval)`;
  }
  const res = await restExport(service, "audit", cookieHeader(ws.session), "203.0.113.8");
  t.is(res.status, 200);
  t.is(res.headers.get("content-type"), "text/csv; charset=utf-8");
  t.is(res.headers.get("content-disposition"), 'attachment; filename="audit-log.csv"');
  const text = await res.text();
  t.true(text.startsWith("id,createdAt,action,actor,target,ip,details\r\n"));
  t.true(text.includes(`"'=HYPERLINK(""http://evil.test"",""click"")"`), "guarded, then quoted");
  const [header, ...records] = parseCsv(text);
  t.deepEqual(header, ["id", "createdAt", "action", "actor", "target", "ip", "details"]);
  const byAction = new Map(records.map((r) => [r[2], r]));
  t.false(byAction.has("test.outside"), "entries older than the plan's retention are not exported");
  t.true(byAction.has("test.inside"));
  t.deepEqual(byAction.get("test.quoting")?.slice(3), [
    `user:${ws.userId}`,
    'a "quoted", value\r\nwith a line break',
    "198.51.100.9",
    '{"note":"x, \\"y\\""}',
  ]);
  t.is(byAction.get("test.injection")?.[4], `'=HYPERLINK("http://evil.test","click")`);
  t.is(byAction.get("test.plus")?.[4], "'+1+1");
  t.is(byAction.get("test.minus")?.[4], "'-2+3");
  t.is(byAction.get("test.at")?.[4], "'@SUM(A1:A9)");
  t.is(byAction.get("test.tab")?.[4], "'\t=1+1");
  for (const record of records) {
    t.is(record.length, 7);
    t.regex(record[0] ?? "", /^\d+$/);
    t.regex(record[1] ?? "", ISO);
  }
  const times = records.map((r) => Date.parse(r[1] ?? ""));
  t.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    "oldest first",
  );
  t.deepEqual(records.at(-1)?.slice(2), [
    "audit.exported",
    `user:${ws.userId}`,
    "",
    "203.0.113.8",
    '{"retentionDays":90}',
  ]);
  // The bundle applies the same window.
  const bundle = await restBundle(service, ws.session);
  t.is(bundle.auditRetentionDays, 90);
  t.false(bundle.audit.some((a) => a.action === "test.outside"));
  t.like(
    bundle.audit.find((a) => a.action === "test.quoting"),
    { target: 'a "quoted", value\r\nwith a line break', details: { note: 'x, "y"' }, ip: "198.51.100.9" },
  );
});

test("ExportAudit over gRPC with a session returns the same CSV", async (t) => {
  const ws = await exportWorkspace(service, "team");
  const csv = joinChunks(await grpcExportChunks(service, "audit", { "x-session-token": ws.session }));
  const [header, ...records] = parseCsv(csv);
  t.is(header?.join(","), "id,createdAt,action,actor,target,ip,details");
  t.deepEqual(
    records.map((r) => r[2]),
    ["tenant.onboarded", "audit.exported"],
  );
  t.is(records.at(-1)?.[6], '{"retentionDays":365}');
});

test("free workspace: audit export is 402 with the plan-gate body; the tenant export keeps working", async (t) => {
  const ws = await exportWorkspace(service, "free");
  const sql = service.storage.db.sql;
  for (const [action, age] of [
    ["test.outside", "31 days"],
    ["test.inside", "29 days"],
  ] as const) {
    await sql`insert into audit_log (tenant_id, action, created_at)
              values (${ws.tenantId}, ${action}, now() - ${age}::interval)`;
  }
  const res = await restExport(service, "audit", cookieHeader(ws.session));
  t.is(res.status, 402);
  t.deepEqual(await res.json(), {
    error: "plan_upgrade_required",
    feature: "audit_export",
    currentPlan: "free",
    requiredPlans: ["pro", "team", "api"],
    message: "the audit-log export needs the pro plan or higher",
    upgradeUrl: "http://localhost:0/dashboard/billing",
  });
  const error = ConnectError.from(
    await t.throwsAsync(grpcExportChunks(service, "audit", { "x-session-token": ws.session })),
  );
  t.is(error.code, Code.FailedPrecondition);
  t.like(error.findDetails(PlanGateSchema)[0], { feature: "audit_export", currentPlan: "free" });
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from audit_log where tenant_id = ${ws.tenantId} and action = 'audit.exported'`;
  t.is(row?.n, 0, "a refused export records nothing");

  const bundle = await restBundle(service, ws.session);
  t.is(bundle.auditRetentionDays, 30, "Privat retention");
  const actions = bundle.audit.map((a) => a.action);
  t.true(actions.includes("test.inside"));
  t.false(actions.includes("test.outside"));
});

/** 2,000 notes of ~2 KB and one 3 MB document of two-byte characters, written with SQL. */
async function seedLargeWorkspace(tenantId: string): Promise<void> {
  const sql = service.storage.db.sql;
  await sql`
    insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256, status, created_at)
    select ${tenantId}, gen_random_uuid(), 'entry', 'Notiz ' || g, c, sha256(convert_to(c, 'UTF8')),
           'indexed', now() - interval '1 hour' + g * interval '1 millisecond'
    from generate_series(1, 2000) g, lateral (select repeat('Inhalt ' || g || ' ', 250) as c) content`;
  await sql`
    insert into memories (tenant_id, lineage_id, kind, title, content, content_sha256, status)
    select ${tenantId}, gen_random_uuid(), 'document', 'Großes Dokument', c, sha256(convert_to(c, 'UTF8')),
           'indexed'
    from (select repeat('ä', 1500000) as c) content`;
}

test("a large workspace (2,000 memories and a 3 MB document) streams in bounded chunks", async (t) => {
  const ws = await exportWorkspace(service, "pro");
  await seedLargeWorkspace(ws.tenantId);
  const chunks = await grpcExportChunks(service, "tenant", { "x-session-token": ws.session });
  t.true(chunks.length > 50, `${chunks.length} chunks`);
  t.true(
    chunks.every((c) => c.length <= CHUNK_SIZE),
    "no message above the chunk size",
  );
  const bundle = JSON.parse(joinChunks(chunks)) as TenantBundle;
  t.is(bundle.memories.length, 2001);
  t.is(bundle.counts.memories, 2001);
  t.is(bundle.memories.at(-1)?.content, "ä".repeat(1_500_000), "split characters join again");
  t.is(bundle.memories[0]?.title, "Notiz 1");
  t.is(bundle.memories[1999]?.title, "Notiz 2000");
  const res = await restExport(service, "tenant", cookieHeader(ws.session));
  t.is(res.status, 200);
  const rest = (await res.json()) as TenantBundle;
  t.is(rest.memories.length, 2001);
});

/** Backends of the service's database in a transaction, other than the one asking. */
async function openTransactions(): Promise<number> {
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`;
  return row?.n ?? 0;
}

async function transactionsEnd(what: string): Promise<void> {
  await waitFor(async () => ((await openTransactions()) === 0 ? true : undefined), { what });
}

async function transactionOpens(what: string): Promise<void> {
  await waitFor(async () => ((await openTransactions()) > 0 ? true : undefined), { what });
}

test.serial("a client that leaves mid-export ends the export's transaction (gRPC and REST)", async (t) => {
  const ws = await exportWorkspace(service, "pro");
  await seedLargeWorkspace(ws.tenantId);
  await transactionsEnd("other tests' transactions");

  const client = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  const grpcAbort = new AbortController();
  const stream = client
    .exportTenant({}, { headers: { "x-session-token": ws.session }, signal: grpcAbort.signal })
    [Symbol.asyncIterator]();
  t.false((await stream.next()).done);
  // The export waits for its reader with the snapshot open...
  await transactionOpens("the gRPC export's open transaction");
  grpcAbort.abort();
  // ...and rolls it back once the reader is gone, instead of holding a connection and a snapshot.
  await transactionsEnd("the gRPC export's transaction to end");

  const restAbort = new AbortController();
  const res = await fetch(`${service.httpUrl}/api/tenant/export`, {
    headers: cookieHeader(ws.session),
    signal: restAbort.signal,
  });
  t.is(res.status, 200);
  const reader = res.body?.getReader();
  t.false((await reader?.read())?.done);
  await transactionOpens("the REST export's open transaction");
  restAbort.abort();
  await transactionsEnd("the REST export's transaction to end");

  const after = await grpcExportChunks(service, "tenant", { "x-session-token": ws.session });
  t.is((JSON.parse(joinChunks(after)) as TenantBundle).memories.length, 2001, "the next export works");
});
