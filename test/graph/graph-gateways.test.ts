import test from "ava";
import { generateSecret, hashSecret } from "../../core/auth/token-format.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { type JsonRpcAnswer, parseJsonAnswer, postMcp, rpc, UNTHROTTLED } from "../mcp/post-mcp.js";
import { storeMemory, testModels } from "./graph-test-kit.js";

// The graph operations as users reach them: MCP tools at /api/mcp/v1 (snake_case, JSON-RPC codes)
// and REST (/api/v1 bearer routes, GET /api/graph/schema with a session) — status codes and the
// registry rule in the message, as core produced it.

let service: TestService;
let tenant: TestTenant;
let readOnly: string;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
  readOnly = (await tenant.issueToken(["read"], "reader")).token;
});
test.after.always(async () => {
  await service?.stop();
});

async function tool(
  name: string,
  args: Record<string, unknown>,
  token = tenant.token,
): Promise<JsonRpcAnswer> {
  const answer = await postMcp(service.httpUrl, rpc("tools/call", { name, arguments: args }), { token });
  return parseJsonAnswer(answer);
}
const structured = (answer: JsonRpcAnswer) => answer.result?.structuredContent as Record<string, unknown>;

async function rest(
  path: string,
  init: { method?: string; body?: unknown; token?: string; cookie?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.cookie !== undefined) headers.cookie = init.cookie;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${service.httpUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A dashboard session of a member of the tenant, written where the authenticator reads it. */
async function sessionCookie(tenantId: string): Promise<string> {
  const sql = service.storage.db.sql;
  const secret = generateSecret();
  const [user] = await sql<{ id: string }[]>`
    insert into users (email) values (${`graph-${secret.slice(0, 8)}@example.test`}) returning id`;
  await sql`insert into memberships (tenant_id, user_id, role) values (${tenantId}, ${user!.id}, 'owner')`;
  await sql`insert into sessions (user_id, token_hash, expires_at)
            values (${user!.id}, ${hashSecret(secret)}, now() + interval '1 day')`;
  return `service.session-token=${secret}`;
}

test("MCP: link, list_relations, unlink with snake_case results", async (t) => {
  const person = await storeMemory(service, tenant, { title: "Emil", memoryType: "entity" });
  const doc = await storeMemory(service, tenant, { title: "Emil's contract" });
  const link = structured(await tool("service_link", { from_id: person, to_id: doc, rel_type: "OWNS" }));
  t.truthy(link.edge_id);
  t.truthy(link.inverse_edge_id);
  const again = structured(await tool("service_link", { from_id: person, to_id: doc, rel_type: "OWNS" }));
  t.deepEqual(again, link, "idempotent");
  const relations = structured(await tool("service_list_relations", { memory_id: doc }));
  t.like(relations, {
    outgoing: [{ rel_type: "OWNED_BY", to: person }],
    incoming: [{ rel_type: "OWNS", from: person }],
  });
  t.deepEqual(structured(await tool("service_unlink", { from_id: person, to_id: doc, rel_type: "OWNS" })), {
    deleted: true,
  });
  t.deepEqual(structured(await tool("service_unlink", { from_id: person, to_id: doc, rel_type: "OWNS" })), {
    deleted: false,
  });
});

test("MCP: registry rules answer -32602 naming the rule; unknown ids the not-found code", async (t) => {
  const note = await storeMemory(service, tenant, { title: "A plain note" });
  const person = await storeMemory(service, tenant, { title: "Frieda", memoryType: "entity" });
  const shape = await tool("service_link", { from_id: note, to_id: person, rel_type: "OWNS" });
  t.is(shape.error?.code, -32602);
  t.regex(shape.error?.message ?? "", /\(rule shape\)/);
  const unknown = await tool("service_link", { from_id: note, to_id: person, rel_type: "ADORES" });
  t.is(unknown.error?.code, -32602);
  t.regex(unknown.error?.message ?? "", /rule rel_type_unknown/);
  const reserved = await tool("service_link", { from_id: note, to_id: person, rel_type: "SUPERSEDES" });
  t.regex(reserved.error?.message ?? "", /rule rel_type_reserved/);
  const loop = await tool("service_link", { from_id: note, to_id: note, rel_type: "RELATED_TO" });
  t.regex(loop.error?.message ?? "", /rule self_loop/);
  const missing = await tool("service_list_relations", { memory_id: "00000000-0000-4000-8000-00000000000f" });
  t.is(missing.error?.code, -32004);
});

test("MCP: update_fact returns the three ids; a stale target gets the conflict code naming the current one", async (t) => {
  const v1 = await storeMemory(service, tenant, {
    title: "Wi-Fi password",
    content: "The password is tulip.",
  });
  const first = structured(
    await tool("service_update_fact", {
      target_id: v1,
      new_title: "Wi-Fi password",
      new_content: "It is daisy now.",
    }),
  );
  t.is(first.old_memory_id, v1);
  t.truthy(first.new_memory_id);
  t.truthy(first.supersedes_edge);
  const stale = await tool("service_update_fact", {
    target_id: v1,
    new_title: "Wi-Fi password",
    new_content: "rose",
  });
  t.is(stale.error?.code, -32005);
  t.true((stale.error?.message ?? "").includes(`the current version is ${String(first.new_memory_id)}`));
  const denied = await tool(
    "service_update_fact",
    { target_id: first.new_memory_id, new_title: "Wi-Fi password", new_content: "rose" },
    readOnly,
  );
  t.is(denied.error?.code, -32002);
});

test("REST: link/list/unlink under /api/v1, shape violation 400, unknown id 404, update 201 then 409", async (t) => {
  const person = await storeMemory(service, tenant, { title: "Gustav", memoryType: "entity" });
  const memo = await storeMemory(service, tenant, { title: "Gustav's memo" });
  const token = tenant.token;
  const linked = await rest("/api/v1/relations", {
    token,
    body: { fromId: memo, toId: person, relType: "ABOUT" },
  });
  t.is(linked.status, 200);
  t.truthy(linked.body.edgeId);
  const listed = await rest(`/api/v1/memory/${memo}/relations`, { token });
  t.like(listed.body, { outgoing: [{ relType: "ABOUT", to: person }] });
  const shape = await rest("/api/v1/relations", {
    token,
    body: { fromId: memo, toId: person, relType: "OWNS" },
  });
  t.is(shape.status, 400);
  t.regex(String(shape.body.error), /\(rule shape\)/);
  const missing = await rest("/api/v1/relations", {
    token,
    body: { fromId: memo, toId: "00000000-0000-4000-8000-0000000000ee", relType: "ABOUT" },
  });
  t.is(missing.status, 404);
  const unlinked = await rest(`/api/v1/relations?fromId=${memo}&toId=${person}&relType=ABOUT`, {
    token,
    method: "DELETE",
  });
  t.deepEqual(unlinked, { status: 200, body: { deleted: true } });

  const updated = await rest(`/api/v1/memory/${memo}/versions`, {
    token,
    body: { newTitle: "Gustav's memo", newContent: "Gustav prefers tea." },
  });
  t.is(updated.status, 201);
  t.is(updated.body.oldMemoryId, memo);
  const stale = await rest(`/api/v1/memory/${memo}/versions`, {
    token,
    body: { newTitle: "Gustav's memo", newContent: "Gustav prefers coffee." },
  });
  t.is(stale.status, 409);
  t.true(String(stale.body.error).includes(String(updated.body.newMemoryId)));
  const forbidden = await rest(`/api/v1/memory/${String(updated.body.newMemoryId)}/versions`, {
    token: readOnly,
    body: { newTitle: "Gustav's memo", newContent: "x" },
  });
  t.is(forbidden.status, 403);
});

test("REST: GET /api/graph/schema with a session: counts, edgeTypes with rel_type, the registry", async (t) => {
  const fresh = await service.createTenant({ limitsOverride: UNTHROTTLED });
  const a = await storeMemory(service, fresh, { title: "Heidi", memoryType: "entity" });
  const b = await storeMemory(service, fresh, { title: "Heidi's garden" });
  await postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_link", arguments: { from_id: a, to_id: b, rel_type: "OWNS" } }),
    { token: fresh.token },
  );
  const cookie = await sessionCookie(fresh.tenantId);
  const schema = await rest("/api/graph/schema", { cookie });
  t.is(schema.status, 200);
  t.like(schema.body, {
    nodes: 2,
    edges: 2,
    edgeTypes: [
      { rel_type: "OWNED_BY", count: 1 },
      { rel_type: "OWNS", count: 1 },
    ],
  });
  const registry = schema.body.relationTypes as { name: string; inverse: string }[];
  t.true(registry.some((r) => r.name === "OWNS" && r.inverse === "OWNED_BY"));
  // Session-only route (spec "Authentication" 5): a bearer token alone is not enough.
  t.is((await rest("/api/graph/schema", { token: fresh.token })).status, 401);
});
