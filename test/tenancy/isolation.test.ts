import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import {
  grpcExportChunks,
  joinChunks,
  parseCsv,
  restBundle,
  restExport,
  sessionFor,
  type TenantBundle,
} from "./export-helper.js";
import { cookieHeader, signInWithWorkspace } from "./sign-in-helper.js";

// Tenant isolation (spec: "the tenant is always derived from the token or session; cross-tenant
// access is blocked"). Workspace A knows the ids of workspace B's memories and tries to read, link,
// update and unlink them through gRPC, REST and MCP: every attempt is "not found", exactly like an
// id that does not exist, and B's data is unchanged afterwards. RLS is checked on its own too.

let service: TestService;
let a: TestTenant;
let b: TestTenant;
/** B's memories, and one of A's. */
let b1: string;
let b2: string;
let a1: string;
const MISSING = "00000000-0000-4000-8000-000000000000";

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };

function clients(token: string) {
  const transport = createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(token)] });
  return {
    ingest: createClient(IngestService, transport),
    graph: createClient(GraphService, transport),
    recall: createClient(RecallService, transport),
  };
}

async function store(tenant: TestTenant, title: string, content: string): Promise<string> {
  const res = await clients(tenant.token).ingest.storeMemory({ title, content });
  const id = res.memory?.memoryId;
  if (!id) throw new Error("no memory id");
  return id;
}

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    worker: false,
    captureLogs: true,
    env: { TRUST_PROXY: "true" },
  });
  a = await service.createTenant();
  b = await service.createTenant();
  a1 = await store(a, "Alpha Notiz", "Alpha arbeitet mit dem Kunden Nordlicht zusammen.");
  b1 = await store(b, "Geheimprojekt Zebra", "Zebra ist das vertrauliche Projekt von Workspace B.");
  b2 = await store(b, "Zebra Budget", "Das Budget von Zebra beträgt 42.000 Euro.");
  await clients(b.token).graph.link({ fromId: b1, toId: b2, relType: "RELATED_TO" });
});

test.after.always(async () => {
  await service?.stop();
});

async function grpcCode(call: Promise<unknown>): Promise<Code | "ok"> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

/** B's graph and content as B sees them: used to prove nothing changed. */
async function bState() {
  const graph = clients(b.token).graph;
  return {
    b1: await graph.listRelations({ memoryId: b1 }),
    b2: await graph.listRelations({ memoryId: b2 }),
    versions: await service.storage.db.sql`
      select id, valid_to from memories where tenant_id = ${b.tenantId} order by id`,
  };
}

test.serial(
  "gRPC: another workspace's memories are not found for read, link, update and unlink",
  async (t) => {
    const before = await bState();
    const { graph, recall } = clients(a.token);
    const attempts: [string, Promise<unknown>][] = [
      ["list relations of B's memory", graph.listRelations({ memoryId: b1 })],
      ["link A → B", graph.link({ fromId: a1, toId: b1, relType: "RELATED_TO" })],
      ["link B → A", graph.link({ fromId: b1, toId: a1, relType: "RELATED_TO" })],
      ["link B → B", graph.link({ fromId: b1, toId: b2, relType: "MENTIONS" })],
      ["unlink B's edge", graph.unlink({ fromId: b1, toId: b2, relType: "RELATED_TO" })],
      ["update B's fact", graph.updateFact({ targetId: b1, newTitle: "Hijacked", newContent: "mine now" })],
    ];
    for (const [what, call] of attempts) t.is(await grpcCode(call), Code.NotFound, what);
    t.is(await grpcCode(graph.listRelations({ memoryId: MISSING })), Code.NotFound, "like a missing id");
    const hits = await recall.recall({ query: "Zebra vertrauliche Projekt Budget", k: 25, hops: 3 });
    t.false(
      hits.hits.some((h) => h.memoryId === b1 || h.memoryId === b2),
      "recall never returns another workspace's memories",
    );
    const recent = await recall.listRecent({ k: 50 });
    t.false(recent.items.some((i) => i.id === b1 || i.id === b2));
    t.deepEqual(await bState(), before, "B's graph and versions are unchanged");
  },
);

test.serial("REST (/api/v1, Bearer): the same attempts are 404", async (t) => {
  const before = await bState();
  const headers = { authorization: `Bearer ${a.token}`, "content-type": "application/json" };
  const v1 = `${service.httpUrl}/api/v1`;
  const relations = await fetch(`${v1}/memory/${b1}/relations`, { headers });
  t.is(relations.status, 404);
  const link = await fetch(`${v1}/relations`, {
    method: "POST",
    headers,
    body: JSON.stringify({ fromId: a1, toId: b1, relType: "RELATED_TO" }),
  });
  t.is(link.status, 404);
  const update = await fetch(`${v1}/memory/${b1}/versions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ newTitle: "Hijacked", newContent: "mine now" }),
  });
  t.is(update.status, 404);
  const unlink = await fetch(`${v1}/relations?fromId=${b1}&toId=${b2}&relType=RELATED_TO`, {
    method: "DELETE",
    headers: { authorization: headers.authorization },
  });
  t.is(unlink.status, 404);
  const recall = await fetch(`${service.httpUrl}/api/memory/recall`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query: "Zebra vertrauliche Projekt", k: 25 }),
  });
  t.is(recall.status, 200);
  const body = (await recall.json()) as { hits: { memoryId: string }[] };
  t.false(body.hits.some((h) => h.memoryId === b1 || h.memoryId === b2));
  t.deepEqual(await bState(), before);
});

test.serial("REST with a session of another workspace: B's memories are not found either", async (t) => {
  const { session } = await signInWithWorkspace(service, "api");
  const relations = await fetch(`${service.httpUrl}/api/v1/memory/${b1}/relations`, {
    headers: cookieHeader(session),
  });
  // /api/v1 is the bearer surface: a session is refused there before any tenant lookup.
  t.is(relations.status, 401);
  const recall = await fetch(`${service.httpUrl}/api/memory/recall`, {
    method: "POST",
    headers: { ...cookieHeader(session), "content-type": "application/json" },
    body: JSON.stringify({ query: "Zebra vertrauliche Projekt", k: 25 }),
  });
  t.is(recall.status, 200);
  const body = (await recall.json()) as { hits: { memoryId: string }[] };
  t.false(body.hits.some((h) => h.memoryId === b1 || h.memoryId === b2));
});

test.serial("MCP: the tools answer not found (-32004) for another workspace's ids", async (t) => {
  const before = await bState();
  let id = 1;
  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${a.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    });
    t.is(res.status, 200, name);
    return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  };
  for (const [name, args] of [
    ["service_list_relations", { memory_id: b1 }],
    ["service_link", { from_id: a1, to_id: b1, rel_type: "RELATED_TO" }],
    ["service_update_fact", { target_id: b1, new_title: "Hijacked", new_content: "mine now" }],
    ["service_unlink", { from_id: b1, to_id: b2, rel_type: "RELATED_TO" }],
  ] as const) {
    const answer = await call(name, args);
    t.is(answer.error?.code, -32004, `${name}: ${JSON.stringify(answer)}`);
  }
  const recalled = await call("service_recall", { query: "Zebra vertrauliche Projekt", k: 25 });
  t.false(JSON.stringify(recalled).includes(b1));
  t.false(JSON.stringify(recalled).includes(b2));
  t.deepEqual(await bState(), before);
});

test.serial("the tenant cannot be chosen by a request field", async (t) => {
  const headers = { authorization: `Bearer ${a.token}`, "content-type": "application/json" };
  const res = await fetch(`${service.httpUrl}/api/memory/recall`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query: "Zebra", tenantId: b.tenantId }),
  });
  t.is(res.status, 400, "unknown fields such as tenantId are refused, not honoured");
});

test.serial("Row-Level Security alone hides another tenant's rows (defence in depth)", async (t) => {
  const counts = await service.storage.db.withTenant(a.tenantId, async (tx) => {
    const [memories] = await tx<
      { n: number }[]
    >`select count(*)::int as n from memories where id in (${b1}, ${b2})`;
    const [edges] = await tx<
      { n: number }[]
    >`select count(*)::int as n from edges where tenant_id = ${b.tenantId}`;
    const [tokens] = await tx<
      { n: number }[]
    >`select count(*)::int as n from api_tokens where tenant_id = ${b.tenantId}`;
    const [tenants] = await tx<{ n: number }[]>`select count(*)::int as n from tenants`;
    return { memories: memories?.n, edges: edges?.n, tokens: tokens?.n, tenants: tenants?.n };
  });
  t.deepEqual(counts, { memories: 0, edges: 0, tokens: 0, tenants: 1 });
  const insert = service.storage.db.withTenant(
    a.tenantId,
    (tx) =>
      tx`insert into api_tokens (tenant_id, name, token_hash, scopes) values (${b.tenantId}, 'x', ${Buffer.alloc(32, 7)}, ${["read"]})`,
  );
  await t.throwsAsync(insert, { message: /row-level security/ });
});

test.serial(
  "exports hold only the caller's workspace: B's memories, edges and audit never appear in A's",
  async (t) => {
    const sessionA = await sessionFor(service, a.tenantId);
    const sessionB = await sessionFor(service, b.tenantId);
    // B exports first, so B has audit entries of its own (tenant.exported, audit.exported) by then.
    const bundleB = await restBundle(service, sessionB);
    t.deepEqual(bundleB.memories.map((m) => m.id).sort(), [b1, b2].sort());
    t.is(bundleB.edges.length, 2, "B's link and its inverse");
    const auditB = await restExport(service, "audit", cookieHeader(sessionB));
    t.is(auditB.status, 200);
    const auditIdsB = parseCsv(await auditB.text())
      .slice(1)
      .map((r) => r[0]);
    t.true(auditIdsB.length > 0);

    const restA = await restExport(service, "tenant", cookieHeader(sessionA));
    t.is(restA.status, 200);
    const rawA = await restA.text();
    const grpcA = joinChunks(await grpcExportChunks(service, "tenant", { "x-session-token": sessionA }));
    for (const [transport, raw] of [
      ["REST", rawA],
      ["gRPC", grpcA],
    ] as const) {
      const bundle = JSON.parse(raw) as TenantBundle;
      t.is(bundle.tenant.id, a.tenantId, transport);
      t.deepEqual(
        bundle.memories.map((m) => m.id),
        [a1],
        `${transport}: only A's memory`,
      );
      t.deepEqual(bundle.edges, [], `${transport}: A has no edges`);
      t.false(
        bundle.audit.some((e) => auditIdsB.includes(e.id)),
        `${transport}: none of B's audit entries`,
      );
      for (const secret of [b.tenantId, b.slug, b1, b2, "Zebra", ...bundleB.edges.map((e) => e.id)]) {
        t.false(raw.includes(secret), `${transport}: ${secret} does not appear anywhere in A's export`);
      }
    }
    const auditA = await restExport(service, "audit", cookieHeader(sessionA));
    const rowsA = parseCsv(await auditA.text()).slice(1);
    t.true(rowsA.length > 0);
    t.false(
      rowsA.some((r) => auditIdsB.includes(r[0])),
      "A's audit CSV holds none of B's entries",
    );
  },
);
