import { Ajv2020 } from "ajv/dist/2020.js";
import test from "ava";
import { BEARER, HAPPY_CORE, type StubEdge, startStubEdge } from "./stub-edge.js";

// The OpenAPI 3.1 document is generated from the zod schemas the routes validate with. These tests
// hold it to the running routes: every registered route is in it, and real responses of every
// operation validate against it.

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  "x-auth"?: string;
  "x-core-rpc"?: string;
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
}

const ID = "0b3f8e5c-7a1d-4c2e-9f00-5d6c7b8a9e01";

/** A valid call of every documented operation (by operationId without the V1 suffix). */
const CALLS: Readonly<Record<string, { body?: unknown; query?: string; headers?: Record<string, string> }>> =
  {
    getHealth: {},
    recall: { body: { query: "Kündigungsfrist", k: 3, hops: 1 } },
    ingestDocument: {
      body: { title: "Handbook", content: "# Intro\nText", source: null, metadata: { team: "a" } },
    },
    uploadFile: {
      body: [
        "--b0undary",
        'Content-Disposition: form-data; name="file"; filename="notes.md"',
        "Content-Type: text/markdown",
        "",
        "# Notes",
        "--b0undary",
        'Content-Disposition: form-data; name="metadata"',
        "",
        '{"team":"a"}',
        "--b0undary--",
        "",
      ].join("\r\n"),
      headers: { "content-type": "multipart/form-data; boundary=b0undary" },
    },
    createMemoryEntry: {
      body: { memory_type: "procedural", title: "Deploy", content: "npm run deploy", tags: ["ops"] },
    },
    storeConversation: {
      body: {
        title: "Standup",
        messages: [
          { speaker: "Anna", content: "I fixed the login bug.", at: "2026-03-02T09:00:00Z" },
          { speaker: "Ben", content: "Great, I will deploy it." },
        ],
      },
    },
    fetchWebPage: { body: { url: "https://example.com/handbook", title: "Handbook" } },
    createMemoryEntries: {
      body: {
        memories: [
          { memoryType: "semantic", title: "A", content: "first" },
          { memory_type: "episodic", title: "B", content: "second" },
        ],
      },
    },
    listRecent: { query: "?k=5" },
    listRelations: {},
    listVersions: {},
    link: { body: { fromId: ID, toId: ID, relType: "REFERENCES" } },
    unlink: { query: `?fromId=${ID}&toId=${ID}&relType=REFERENCES` },
    updateFact: { body: { newTitle: "Deploy v2", newContent: "npm run release", updateReason: "renamed" } },
    getStats: {},
    getGraphSchema: {},
    listTokens: {},
    createToken: { body: { name: "ci", scopes: ["read"] } },
    revokeToken: {},
    onboard: { body: { slug: "acme", name: "Acme", plan: "free" } },
    listProviderKeys: {},
    createProviderKey: { body: { provider: "openai", label: "main", apiKey: "sk-test-123456789" } },
    testProviderKey: {},
    deleteProviderKey: {},
    getModelSelection: {},
    updateModelSelection: { body: { rerankKeyId: null } },
    exportAudit: {},
    exportTenant: {},
    importTenant: { body: '{"format":"memory-service-export/v1",\n"counts":{}}\n' },
    eraseWorkspace: { body: { confirmSlug: "acme" } },
    eraseMemory: {},
    createCheckout: { body: { plan: "pro", billing: "yearly" } },
    createPortalSession: {},
    getBilling: {},
    handlePaymentEvent: { body: '{"id":"evt_1"}', headers: { "provider-signature": "t=1,v1=abc" } },
    requestCancellation: { body: { email: "a@example.test", reason: "moving" } },
    signInWithEmail: { body: { email: "a@example.test" } },
    completeEmailSignIn: { query: "?token=abc" },
    signOut: {},
    getSession: {},
    listWebhooks: {},
    createWebhook: { body: { url: "https://hooks.example.test/memory", events: ["memory.created"] } },
    getWebhook: {},
    updateWebhook: { body: { events: ["memory.created", "memory.updated"], description: "CRM" } },
    deleteWebhook: {},
    testWebhook: {},
    reactivateWebhook: {},
    rotateWebhookSecret: {},
    listWebhookDeliveries: { query: "?limit=5" },
  };

/**
 * Hidden on purpose: the reference page's assets, the document itself, unknown sign-in providers,
 * the dashboard's web pages (HTML and assets, not API operations) and the front door `/` that leads
 * to them (ADR 0385).
 */
const HIDDEN = [
  /^\/$/,
  /^\/api\/docs/,
  /^\/api\/openapi\.json$/,
  /^\/api\/auth\/signin\/:provider$/,
  /^\/dashboard(\/|$)/,
  /^\/onboarding$/,
];

let edge: StubEdge;
let doc: Document;

test.before(async () => {
  edge = await startStubEdge(HAPPY_CORE);
  const res = await edge.app.inject({ method: "GET", url: "/api/openapi.json" });
  doc = res.json<Document>();
});

test.after.always(async () => {
  await edge?.app.close();
});

const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

test("the document is OpenAPI 3.1 with the bearer and session schemes", (t) => {
  t.is(doc.openapi, "3.1.0");
  t.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ["bearer", "session"]);
  t.like(doc.components.securitySchemes.session, {
    type: "apiKey",
    in: "cookie",
    name: "service.session-token",
  });
});

test("every registered route is in the document, and only hidden-by-design routes are hidden", (t) => {
  const routes = edge.app.registeredRoutes.filter((r) => r.method !== "HEAD");
  t.true(routes.length > 30);
  for (const route of routes) {
    const label = `${route.method} ${route.url}`;
    if (route.hidden) {
      t.true(
        HIDDEN.some((pattern) => pattern.test(route.url)),
        `${label} is hidden from the document`,
      );
      continue;
    }
    t.truthy(
      doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()],
      `${label} is missing from the document`,
    );
  }
});

test("every REST operation states its auth kind consistently in security and x-auth", (t) => {
  const expected: Record<string, string[][]> = {
    Bearer: [["bearer"]],
    Session: [["session"]],
    Both: [["bearer"], ["session"]],
    None: [],
  };
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (path.startsWith("/api/mcp")) continue; // the MCP gateway's routes, documented by that gateway
    for (const [method, operation] of Object.entries(operations)) {
      const label = `${method.toUpperCase()} ${path}`;
      const auth = operation["x-auth"];
      t.truthy(auth, `${label} has x-auth`);
      t.deepEqual(
        (operation.security ?? []).map((s) => Object.keys(s)),
        expected[auth ?? ""],
        label,
      );
      if (path.startsWith("/api/v1/")) t.is(auth, "Bearer", `${label}: /api/v1 is the bearer surface`);
    }
  }
});

test("real responses of every operation validate against the document", async (t) => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  let checked = 0;
  let operationCount = 0;
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.operationId) continue;
      operationCount++;
      const label = `${method.toUpperCase()} ${path}`;
      const call = CALLS[operation.operationId.replace(/V1$/, "")];
      if (!call) {
        t.fail(`${label} (${operation.operationId}) has no example call in this test`);
        continue;
      }
      const body = call.body;
      const res = await edge.app.inject({
        method: method.toUpperCase() as "GET",
        url: path.replaceAll("{id}", ID) + (call.query ?? ""),
        headers: {
          ...BEARER,
          cookie: `service.session-token=${"s".repeat(43)}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...call.headers,
        },
        ...(body === undefined ? {} : { payload: typeof body === "string" ? body : JSON.stringify(body) }),
      });
      t.true(res.statusCode < 400, `${label} answered ${res.statusCode}: ${res.body}`);
      const response = operation.responses[String(res.statusCode)];
      t.truthy(response, `${label}: status ${res.statusCode} is documented`);
      const type = String(res.headers["content-type"]).split(";")[0] ?? "";
      const schema = response?.content?.[type]?.schema;
      t.truthy(schema, `${label}: ${type} response has a schema`);
      if (!schema) continue;
      const value = type === "application/json" ? res.json() : res.body;
      const validate = ajv.compile({ ...schema, components: doc.components });
      t.true(validate(value), `${label}: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`);
      checked++;
    }
  }
  t.is(checked, operationCount);
  t.true(checked > 20, `checked ${checked} operations`);
});

test("request bodies that violate the document are refused by the route (same schema both ways)", async (t) => {
  const recall = doc.paths["/api/memory/recall"]?.post?.requestBody?.content["application/json"]?.schema;
  t.truthy(recall);
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const validate = ajv.compile({ ...recall, components: doc.components });
  for (const body of [
    { query: "x", k: 0 },
    { query: "x", k: 26 },
    { query: "x", hops: 4 },
    { query: "x", extra: 1 },
    {},
  ]) {
    t.false(validate(body), JSON.stringify(body));
    const res = await edge.app.inject({
      method: "POST",
      url: "/api/memory/recall",
      headers: BEARER,
      payload: body,
    });
    t.is(res.statusCode, 400, JSON.stringify(body));
  }
});

test("the human-readable reference is served from npm assets at /api/docs", async (t) => {
  const index = await edge.app.inject({ method: "GET", url: "/api/docs/" });
  t.is(index.statusCode, 200);
  t.regex(String(index.headers["content-type"]), /text\/html/);
  const script = /src="\.\/(static\/[^"]+\.js)"/.exec(index.body)?.[1];
  t.truthy(script, "the page loads its script from this server");
  const asset = await edge.app.inject({ method: "GET", url: `/api/docs/${script}` });
  t.is(asset.statusCode, 200);
  t.true(asset.body.length > 1000);
});
