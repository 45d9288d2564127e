import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { type RestAnswer, type RestCall, rest } from "./rest-client.js";
import { createSessionCookie } from "./sessions.js";

// Walks the spec's endpoint table ("REST and service endpoints") row by row against the running
// service: each row's path is in the OpenAPI document with the row's auth kind, the service
// enforces that auth kind (a credential of the wrong kind is 401), and a valid call answers the
// row's success status.

type Auth = "Bearer" | "Session" | "Both" | "None";

interface Row {
  readonly method: string;
  /** As the spec writes it ("/api/tokens/{id}", "/api/auth/signin/*", "/api/v1/..."). */
  readonly path: string;
  readonly auth: Auth;
  /** The success status the spec gives; undefined where it says "not shown". */
  readonly specSuccess: number | undefined;
}

/** The spec's table, encoded once (compared with the spec text below when it is at hand). */
const SPEC_TABLE: readonly Row[] = [
  { method: "GET", path: "/health", auth: "None", specSuccess: 200 },
  { method: "GET", path: "/api/health", auth: "Bearer", specSuccess: 200 },
  { method: "POST", path: "/api/memory/recall", auth: "Both", specSuccess: 200 },
  { method: "POST", path: "/api/documents", auth: "Both", specSuccess: 202 },
  { method: "GET", path: "/api/graph/schema", auth: "Session", specSuccess: 200 },
  { method: "GET", path: "/api/stats", auth: "Session", specSuccess: 200 },
  { method: "GET", path: "/api/tokens", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/tokens", auth: "Session", specSuccess: 200 },
  { method: "DELETE", path: "/api/tokens/{id}", auth: "Session", specSuccess: 200 },
  { method: "GET", path: "/api/keys", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/keys", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/keys/{id}/test", auth: "Session", specSuccess: 200 },
  { method: "GET", path: "/api/audit/export", auth: "Session", specSuccess: 200 },
  { method: "GET", path: "/api/tenant/export", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/onboarding", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/subscription/portal", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/checkout", auth: "Session", specSuccess: 200 },
  { method: "POST", path: "/api/checkout/webhook", auth: "None", specSuccess: 200 },
  { method: "POST", path: "/api/auth/signin/*", auth: "None", specSuccess: undefined },
  { method: "POST", path: "/api/kuendigung", auth: "None", specSuccess: undefined },
  { method: "any", path: "/api/v1/...", auth: "Bearer", specSuccess: undefined },
];

const SPEC_FILE = resolve(process.cwd(), "../shared/spec/memory-service-interface.md");

/** The rows of the spec's REST table as the spec text states them. */
function parseSpecTable(markdown: string): Row[] {
  const section = markdown.split("### REST and service endpoints")[1]?.split("\nNotes:")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Method") && !line.startsWith("|---"))
    .map((line) => {
      const [method = "", path = "", auth = "", , response = ""] = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
      const status = /^(\d{3})\b/.exec(response)?.[1];
      return {
        method,
        path,
        auth: auth.split(" ")[0] as Auth,
        specSuccess: status === undefined ? undefined : Number(status),
      };
    });
}

let service: TestService;
let tenant: TestTenant;
let cookie: string;
let doc: { paths: Record<string, Record<string, { "x-auth"?: string }>> };

/**
 * A valid call for each row, the status this service answers on success (the spec's, or ours
 * where the spec says "not shown", documented in docs/rest.md) and the credentials that fit.
 */
interface Probe {
  readonly path: string;
  readonly method: string;
  readonly success: number;
  readonly call: (credentials: RestCall) => Promise<RestAnswer>;
}

function probes(): Record<string, Probe> {
  const u = service.httpUrl;
  const simple = (method: string, path: string, success: number, body?: unknown): Probe => ({
    method,
    path,
    success,
    call: (c) => rest(u, path, { ...c, method, ...(body === undefined ? {} : { body }) }),
  });
  return {
    "GET /health": simple("GET", "/health", 200),
    "GET /api/health": simple("GET", "/api/health", 200),
    "POST /api/memory/recall": simple("POST", "/api/memory/recall", 200, { query: "Kündigungsfrist" }),
    "POST /api/documents": simple("POST", "/api/documents", 202, { title: "Contract doc", content: "Text." }),
    "GET /api/graph/schema": simple("GET", "/api/graph/schema", 200),
    "GET /api/stats": simple("GET", "/api/stats", 200),
    "GET /api/tokens": simple("GET", "/api/tokens", 200),
    "POST /api/tokens": simple("POST", "/api/tokens", 200, { name: "contract", scopes: ["read"] }),
    "DELETE /api/tokens/{id}": {
      method: "DELETE",
      path: "/api/tokens/{id}",
      success: 200,
      call: async (c) => {
        const { id } = await tenant.issueToken(["read"], `to revoke ${randomUUID()}`);
        return rest(u, `/api/tokens/${id}`, { ...c, method: "DELETE" });
      },
    },
    "GET /api/keys": simple("GET", "/api/keys", 200),
    "POST /api/keys": simple("POST", "/api/keys", 200, {
      provider: "openai",
      label: "contract",
      apiKey: "sk-contract-test-key-123",
    }),
    "POST /api/keys/{id}/test": {
      method: "POST",
      path: "/api/keys/{id}/test",
      success: 200,
      call: async (c) => {
        // A key whose provider cannot be reached: the round trip is a result (ok: false), 200.
        const created = await rest(u, "/api/keys", {
          ...c,
          method: "POST",
          body: { provider: "openai", apiKey: "sk-contract-test-key-123", baseUrl: "http://127.0.0.1:9/v1" },
        });
        const { id } = created.body as { id: string };
        return rest(u, `/api/keys/${id}/test`, { ...c, method: "POST" });
      },
    },
    "GET /api/audit/export": simple("GET", "/api/audit/export", 200),
    "GET /api/tenant/export": simple("GET", "/api/tenant/export", 200),
    "POST /api/onboarding": {
      method: "POST",
      path: "/api/onboarding",
      success: 200,
      // Onboarding is for a signed-in user without a workspace yet.
      call: async (c) => {
        const fresh = c.cookie ? await createSessionCookie(service, undefined) : undefined;
        const slug = `contract-${randomUUID().slice(0, 8)}`;
        return rest(u, "/api/onboarding", {
          ...c,
          ...(fresh ? { cookie: fresh } : {}),
          body: { slug, name: "Contract GmbH", plan: "free" },
        });
      },
    },
    "POST /api/subscription/portal": simple("POST", "/api/subscription/portal", 200),
    "POST /api/checkout": simple("POST", "/api/checkout", 200, { plan: "pro" }),
    "POST /api/checkout/webhook": simple("POST", "/api/checkout/webhook", 200, '{"id":"evt_contract"}'),
    "POST /api/auth/signin/*": simple("POST", "/api/auth/signin/email", 200, {
      email: "contract@example.test",
    }),
    "POST /api/kuendigung": simple("POST", "/api/kuendigung", 200, {
      email: "contract@example.test",
      workspace: "contract",
    }),
    "any /api/v1/...": simple("POST", "/api/v1/memory/recall", 200, { query: "Kündigungsfrist" }),
  };
}

/**
 * Rows whose success needs a core piece that has not landed: the probe must answer 501 (core's
 * UNIMPLEMENTED) until then, so this list fails the moment the piece lands and is taken off it.
 */
const WAITING_FOR_CORE: Readonly<Record<string, string>> = {};

/**
 * This service runs without Stripe keys, so the payment routes answer the spec's 503 "payments not
 * configured"; their success paths run against a fake Stripe API in test/billing/.
 */
const WITHOUT_PAYMENTS: ReadonlySet<string> = new Set([
  "POST /api/subscription/portal",
  "POST /api/checkout",
  "POST /api/checkout/webhook",
  "POST /api/kuendigung",
]);

test.before(async () => {
  // A small deterministic embedder: these tests are about the REST surface, not model quality.
  service = await startTestService({
    models: testModels(),
    env: { MASTER_KEY: randomBytes(32).toString("base64"), PROVIDER_ALLOW_PRIVATE_URLS: "true" },
  });
  tenant = await service.createTenant({ plan: "api" });
  cookie = await createSessionCookie(service, tenant.tenantId);
  doc = (await rest(service.httpUrl, "/api/openapi.json")).body as typeof doc;
});

test.after.always(async () => {
  await service?.stop();
});

const key = (row: Row) => `${row.method} ${row.path}`;

test("the encoded table matches the spec's endpoint table", (t) => {
  if (!existsSync(SPEC_FILE)) {
    t.log(`spec not found at ${SPEC_FILE}; checking the encoded table only`);
    t.pass();
    return;
  }
  t.deepEqual(parseSpecTable(readFileSync(SPEC_FILE, "utf8")), [...SPEC_TABLE]);
});

for (const row of SPEC_TABLE) {
  test(`${key(row)} (${row.auth}): documented with its auth kind`, (t) => {
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ path, method, auth: operation["x-auth"] })),
    );
    if (row.path === "/api/v1/...") {
      const v1 = documented.filter((d) => d.path.startsWith("/api/v1/"));
      t.true(v1.length >= 10, "the bearer surface has its routes");
      for (const d of v1) t.is(d.auth, "Bearer", `${d.method} ${d.path}`);
      return;
    }
    if (row.path.endsWith("/*")) {
      const prefix = row.path.slice(0, -1);
      const family = documented.filter(
        (d) => d.path.startsWith(prefix) && d.method === row.method.toLowerCase(),
      );
      t.true(family.length > 0, `a route under ${prefix}`);
      for (const d of family) t.is(d.auth, row.auth);
      return;
    }
    const operation = doc.paths[row.path]?.[row.method.toLowerCase()];
    t.truthy(operation, "in the OpenAPI document");
    t.is(operation?.["x-auth"], row.auth);
  });

  test(`${key(row)} (${row.auth}): the service enforces the auth kind`, async (t) => {
    const probe = probes()[key(row)];
    if (!probe) return t.fail("no probe");
    const anonymous = await probe.call({});
    const bearer = () => probe.call({ token: tenant.token });
    const session = () => probe.call({ cookie });
    switch (row.auth) {
      case "None":
        t.not(anonymous.status, 401, anonymous.text);
        return;
      case "Bearer":
        t.is(anonymous.status, 401, anonymous.text);
        t.is((await session()).status, 401, "a session cookie is not a bearer credential");
        t.not((await bearer()).status, 401);
        return;
      case "Session":
        t.is(anonymous.status, 401, anonymous.text);
        t.is((await bearer()).status, 401, "a bearer token is not a session");
        t.not((await session()).status, 401);
        return;
      case "Both":
        t.is(anonymous.status, 401, anonymous.text);
        t.not((await bearer()).status, 401);
        t.not((await session()).status, 401);
        return;
    }
  });

  test(`${key(row)} (${row.auth}): a valid call answers the success status`, async (t) => {
    const probe = probes()[key(row)];
    if (!probe) return t.fail("no probe");
    if (row.specSuccess !== undefined) t.is(probe.success, row.specSuccess, "the spec's success status");
    const credentials =
      row.auth === "Session" ? { cookie } : row.auth === "None" ? {} : { token: tenant.token };
    const answer = await probe.call(credentials);
    if (WITHOUT_PAYMENTS.has(key(row))) {
      t.is(answer.status, 503, answer.text);
      t.regex(answer.text, /payments not configured/);
      return;
    }
    const waiting = WAITING_FOR_CORE[key(row)];
    if (waiting) {
      t.is(
        answer.status,
        501,
        `waits for core ${waiting}; landed? take it off WAITING_FOR_CORE: ${answer.text}`,
      );
      t.regex(answer.text, /not available yet/);
      return;
    }
    t.is(answer.status, probe.success, answer.text.slice(0, 300));
  });
}
