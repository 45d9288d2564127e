import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { errorOf, type RestAnswer, rest } from "./rest-client.js";
import { createSessionCookie } from "./sessions.js";

// The REST write and graph routes end to end with plain fetch against the running service:
// documents, memory entries, relations, fact versions and the graph schema, each with its success
// and every status the spec documents for it.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let service: TestService;
let tenant: TestTenant;
let readOnly: string;
let cookie: string;
let url: string;

test.before(async () => {
  // A small deterministic embedder: these tests are about the REST surface, not model quality.
  service = await startTestService({ models: testModels() });
  url = service.httpUrl;
  tenant = await service.createTenant({ plan: "api" });
  readOnly = (await tenant.issueToken(["read"], "read only")).token;
  cookie = await createSessionCookie(service, tenant.tenantId);
});

test.after.always(async () => {
  await service?.stop();
});

async function entry(title: string, content: string, memoryType = "semantic"): Promise<string> {
  const res = await rest(url, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: memoryType, title, content },
  });
  if (res.status !== 201) throw new Error(`entry ${title}: ${res.status} ${res.text}`);
  return (res.body as { memoryId: string }).memoryId;
}

function expectError(
  t: { is: (a: unknown, b: unknown, m?: string) => void; regex: (a: string, r: RegExp, m?: string) => void },
  res: RestAnswer,
  status: number,
  message?: RegExp,
) {
  t.is(res.status, status, res.text);
  if (message) t.regex(errorOf(res), message);
}

test("POST /api/documents: 202 {documentId, status: queued} with a bearer token or a session", async (t) => {
  const body = { title: "Handbuch", content: "# Kündigung\nDie Frist beträgt drei Monate.", source: null };
  for (const credentials of [{ token: tenant.token }, { cookie }]) {
    const res = await rest(url, "/api/documents", { ...credentials, body });
    t.is(res.status, 202, res.text);
    t.deepEqual(Object.keys(res.body as object).sort(), ["documentId", "status"]);
    t.regex((res.body as { documentId: string }).documentId, UUID);
    t.is((res.body as { status: string }).status, "queued");
  }
  const v1 = await rest(url, "/api/v1/documents", {
    token: tenant.token,
    body: { ...body, title: "v1 doc" },
  });
  t.is(v1.status, 202);
});

test("POST /api/documents: 401 without credentials, 403 without write scope", async (t) => {
  const body = { title: "t", content: "c" };
  const anonymous = await rest(url, "/api/documents", { body });
  expectError(t, anonymous, 401);
  t.regex(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);
  expectError(t, await rest(url, "/api/documents", { token: readOnly, body }), 403, /write/);
  // A token that is well-formed but unknown, and one that is malformed.
  expectError(t, await rest(url, "/api/documents", { token: `kmt_${"x".repeat(43)}`, body }), 401);
  expectError(t, await rest(url, "/api/documents", { token: "not-a-token", body }), 401);
});

test("POST /api/documents: 413 above 10 MB, from the gateway's body limit or from core", async (t) => {
  // Just above the spec's 10 MB but within the body limit: core's size check answers.
  const justAbove = await rest(url, "/api/documents", {
    token: tenant.token,
    body: { title: "big", content: "x".repeat(10 * 1024 * 1024 + 1) },
  });
  expectError(t, justAbove, 413, /split/);
  const wayAbove = await rest(url, "/api/documents", {
    token: tenant.token,
    body: { title: "bigger", content: "x".repeat(12 * 1024 * 1024) },
  });
  expectError(t, wayAbove, 413);
});

test("POST /api/documents: 402 with the plan-gate body once the memory limit is reached", async (t) => {
  const free = await service.createTenant({
    plan: "free",
    limitsOverride: { memoryLimit: 1, requestsPerMinutePerToken: 100_000 },
  });
  const first = await rest(url, "/api/documents", {
    token: free.token,
    body: { title: "one", content: "first" },
  });
  t.is(first.status, 202, first.text);
  const second = await rest(url, "/api/documents", {
    token: free.token,
    body: { title: "two", content: "second" },
  });
  t.is(second.status, 402, second.text);
  const gate = second.body as Record<string, unknown>;
  t.is(gate.error, "plan_upgrade_required");
  t.is(gate.currentPlan, "free");
  t.is(gate.limit, 1);
  t.is(gate.used, 1);
  t.true(Array.isArray(gate.requiredPlans) && gate.requiredPlans.length > 0);
  t.is(typeof gate.feature, "string");
  t.is(typeof gate.upgradeUrl, "string");
  t.is(typeof gate.message, "string");
});

test("POST /api/documents: 400 names the field, 415 for a wrong content type", async (t) => {
  expectError(
    t,
    await rest(url, "/api/documents", { token: tenant.token, body: { content: "c" } }),
    400,
    /^title: /,
  );
  expectError(
    t,
    await rest(url, "/api/documents", {
      token: tenant.token,
      body: { title: "t", content: "c", tenantId: "x" },
    }),
    400,
    /unknown field 'tenantId'/,
  );
  expectError(
    t,
    await rest(url, "/api/documents", { token: tenant.token, body: { title: "", content: "c" } }),
    400,
    /^title: /,
  );
  expectError(
    t,
    await rest(url, "/api/documents", { token: tenant.token, body: { title: "t", content: "   " } }),
    400,
    /content/,
  );
  const form = await rest(url, "/api/documents", {
    token: tenant.token,
    body: "title=t&content=c",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  expectError(t, form, 415);
});

test("POST /api/v1/memory/entries: 201, then 200 with unchanged for byte-identical content", async (t) => {
  const body = { memory_type: "procedural", title: "Deploy", content: "npm run deploy", tags: ["ops"] };
  const created = await rest(url, "/api/v1/memory/entries", { token: tenant.token, body });
  t.is(created.status, 201, created.text);
  const memory = created.body as Record<string, unknown>;
  t.regex(String(memory.memoryId), UUID);
  t.is(memory.id, memory.memoryId);
  t.like(memory, { title: "Deploy", status: "indexed", memoryLimit: null, warnAt80: false });
  t.true(Number(memory.chunksWritten) >= 1);
  t.is(typeof memory.embeddingProvider, "string");
  const again = await rest(url, "/api/v1/memory/entries", { token: tenant.token, body });
  t.is(again.status, 200, again.text);
  t.like(again.body, { memoryId: memory.memoryId, unchanged: true });
  const camel = await rest(url, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memoryType: "entity", title: "ACME GmbH", content: "Kunde seit 2024" },
  });
  t.is(camel.status, 201, camel.text);
});

test("POST /api/v1/memory/entries: 422 for a missing field or a memory_type outside the enum", async (t) => {
  const valid = { memory_type: "working", title: "Scratch", content: "notes" };
  for (const body of [
    { title: "t", content: "c" },
    { memory_type: "working", content: "c" },
    { memory_type: "working", title: "t" },
    { ...valid, memory_type: "emotional" },
    { ...valid, memory_type: "" },
    { ...valid, content: "" },
  ]) {
    expectError(t, await rest(url, "/api/v1/memory/entries", { token: tenant.token, body }), 422);
  }
});

test("POST /api/v1/memory/entries: 413 above 100 KB, 403 without write scope, 401 with a session", async (t) => {
  const big = { memory_type: "semantic", title: "big", content: "ü".repeat(60 * 1024) };
  expectError(
    t,
    await rest(url, "/api/v1/memory/entries", { token: tenant.token, body: big }),
    413,
    /100|split/,
  );
  const valid = { memory_type: "semantic", title: "t", content: "c" };
  expectError(t, await rest(url, "/api/v1/memory/entries", { token: readOnly, body: valid }), 403);
  // /api/v1 is the bearer surface: a session cookie alone is no credential there.
  expectError(t, await rest(url, "/api/v1/memory/entries", { cookie, body: valid }), 401);
});

test("relations: link (inverse too), list, unlink; 404 for unknown ids, 400 for shape violations", async (t) => {
  const a = await entry("Angebot ACME", "Angebot für ACME vom Mai");
  const b = await entry("Rahmenvertrag ACME", "Rahmenvertrag mit ACME");
  const link = await rest(url, "/api/v1/relations", {
    token: tenant.token,
    body: { fromId: a, toId: b, relType: "REFERENCES" },
  });
  t.is(link.status, 200, link.text);
  const { edgeId, inverseEdgeId } = link.body as { edgeId: string; inverseEdgeId: string };
  t.regex(edgeId, UUID);
  t.regex(inverseEdgeId, UUID);

  const fromA = await rest(url, `/api/v1/memory/${a}/relations`, { token: readOnly });
  t.is(fromA.status, 200, fromA.text);
  const relations = fromA.body as {
    outgoing: { relType: string; to: string }[];
    incoming: { relType: string; from: string }[];
  };
  t.true(relations.outgoing.some((r) => r.relType === "REFERENCES" && r.to === b));
  t.true(relations.incoming.some((r) => r.relType === "REFERENCED_BY" && r.from === b));

  const unlink = await rest(url, `/api/v1/relations?fromId=${a}&toId=${b}&relType=REFERENCES`, {
    method: "DELETE",
    token: tenant.token,
  });
  t.is(unlink.status, 200, unlink.text);
  t.deepEqual(unlink.body, { deleted: true });
  const after = (await rest(url, `/api/v1/memory/${b}/relations`, { token: tenant.token })).body as {
    incoming: unknown[];
    outgoing: unknown[];
  };
  t.deepEqual([after.incoming.length, after.outgoing.length], [0, 0]);

  const unknown = "00000000-0000-4000-8000-000000000000";
  expectError(t, await rest(url, `/api/v1/memory/${unknown}/relations`, { token: tenant.token }), 404);
  expectError(
    t,
    await rest(url, "/api/v1/relations", {
      token: tenant.token,
      body: { fromId: a, toId: unknown, relType: "REFERENCES" },
    }),
    404,
  );
  // SAME_AS joins two entity memories; these are semantic (spec: shape constraint → 400).
  expectError(
    t,
    await rest(url, "/api/v1/relations", {
      token: tenant.token,
      body: { fromId: a, toId: b, relType: "SAME_AS" },
    }),
    400,
  );
  expectError(
    t,
    await rest(url, "/api/v1/relations", {
      token: tenant.token,
      body: { fromId: a, toId: b, relType: "references" },
    }),
    400,
    /^relType: /,
  );
  expectError(
    t,
    await rest(url, `/api/v1/memory/not-a-uuid/relations`, { token: tenant.token }),
    400,
    /^id: /,
  );
  expectError(
    t,
    await rest(url, "/api/v1/relations", {
      token: readOnly,
      body: { fromId: a, toId: b, relType: "REFERENCES" },
    }),
    403,
  );
});

test("fact versions: 201 supersedes the old version; 404 unknown; 409 for a superseded target", async (t) => {
  const old = await entry("Preis Pro-Plan", "Der Pro-Plan kostet 20 Euro im Monat.");
  const update = await rest(url, `/api/v1/memory/${old}/versions`, {
    token: tenant.token,
    body: {
      newTitle: "Preis Pro-Plan",
      newContent: "Der Pro-Plan kostet 25 Euro im Monat.",
      updateReason: "Preiserhöhung",
    },
  });
  t.is(update.status, 201, update.text);
  const result = update.body as { oldMemoryId: string; newMemoryId: string; supersedesEdge: string };
  t.is(result.oldMemoryId, old);
  t.regex(result.newMemoryId, UUID);
  t.not(result.newMemoryId, old);
  t.regex(result.supersedesEdge, UUID);
  const relations = (
    await rest(url, `/api/v1/memory/${result.newMemoryId}/relations`, { token: tenant.token })
  ).body as { outgoing: { relType: string; to: string }[] };
  t.true(relations.outgoing.some((r) => r.relType === "SUPERSEDES" && r.to === old));

  const stale = await rest(url, `/api/v1/memory/${old}/versions`, {
    token: tenant.token,
    body: { newTitle: "Preis", newContent: "30 Euro" },
  });
  t.is(stale.status, 409, stale.text);
  expectError(
    t,
    await rest(url, "/api/v1/memory/00000000-0000-4000-8000-000000000000/versions", {
      token: tenant.token,
      body: { newTitle: "x", newContent: "y" },
    }),
    404,
  );
  expectError(
    t,
    await rest(url, `/api/v1/memory/${result.newMemoryId}/versions`, {
      token: readOnly,
      body: { newTitle: "x", newContent: "y" },
    }),
    403,
  );
  expectError(
    t,
    await rest(url, `/api/v1/memory/${result.newMemoryId}/versions`, {
      token: tenant.token,
      body: { newTitle: "", newContent: "y" },
    }),
    400,
    /^newTitle: /,
  );
});

test("GET /api/graph/schema: 200 with a session; a bearer token on this session route is 401", async (t) => {
  const res = await rest(url, "/api/graph/schema", { cookie });
  t.is(res.status, 200, res.text);
  const schema = res.body as {
    nodes: number;
    edges: number;
    edgeTypes: { rel_type: string; relType: string; count: number }[];
    relationTypes: { name: string }[];
  };
  t.true(Number.isInteger(schema.nodes) && Number.isInteger(schema.edges));
  for (const edgeType of schema.edgeTypes) t.is(edgeType.rel_type, edgeType.relType);
  t.true(schema.relationTypes.some((r) => r.name === "REFERENCES"));
  expectError(t, await rest(url, "/api/graph/schema", { token: tenant.token }), 401, /session/);
  expectError(t, await rest(url, "/api/graph/schema"), 401);
  // Both at once: the route takes only the session.
  t.is((await rest(url, "/api/graph/schema", { token: tenant.token, cookie })).status, 200);
});

test("a session of a user without a workspace is told to onboard first (403)", async (t) => {
  const lonely = await createSessionCookie(service, undefined);
  expectError(t, await rest(url, "/api/graph/schema", { cookie: lonely }), 403, /onboarding/);
});
