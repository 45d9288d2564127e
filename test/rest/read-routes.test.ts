import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { errorOf, rest } from "./rest-client.js";
import { createSessionCookie } from "./sessions.js";

// The REST read routes end to end with plain fetch against the running service: recall (Both, and
// Bearer under /api/v1), list recent and stats, with their successes and documented statuses.

let service: TestService;
let tenant: TestTenant;
let cookie: string;
let url: string;
let contractId: string;

interface Hit {
  memoryId: string;
  title: string;
  snippet: string;
  score: number;
  source: string;
  hops: number;
}

test.before(async () => {
  // A small deterministic embedder: these tests are about the REST surface, not model quality.
  service = await startTestService({ models: testModels() });
  url = service.httpUrl;
  tenant = await service.createTenant({ plan: "api" });
  cookie = await createSessionCookie(service, tenant.tenantId);
  const entries = [
    [
      "Rahmenvertrag Logistik",
      "Die Kündigungsfrist des Rahmenvertrags mit Spedition Nord beträgt drei Monate.",
    ],
    ["Urlaubsregel", "Urlaub wird zwei Wochen vorher im Teamkalender eingetragen."],
    ["Deploy", "Releases gehen dienstags nach dem Standup live."],
  ];
  for (const [title, content] of entries) {
    const res = await rest(url, "/api/v1/memory/entries", {
      token: tenant.token,
      body: { memory_type: "semantic", title, content },
    });
    if (res.status !== 201) throw new Error(`seed ${title}: ${res.status} ${res.text}`);
    if (title === "Rahmenvertrag Logistik") contractId = (res.body as { memoryId: string }).memoryId;
  }
});

test.after.always(async () => {
  await service?.stop();
});

interface Stats {
  memories: number;
  edges: number;
  chunks: number;
  queriesLast24h: number;
  p50Ms: number;
  p99Ms: number;
}

const query = { query: "Kündigungsfrist Rahmenvertrag", k: 2, hops: 1 };

test("POST /api/memory/recall: 200 with the spec's REST result, by bearer token or session", async (t) => {
  for (const credentials of [{ token: tenant.token }, { cookie }]) {
    const res = await rest(url, "/api/memory/recall", { ...credentials, body: query });
    t.is(res.status, 200, res.text);
    const body = res.body as { hits: Hit[]; latencyMs: number };
    t.deepEqual(Object.keys(body).sort(), ["hits", "latencyMs"]);
    t.true(Number.isInteger(body.latencyMs));
    t.true(body.hits.length >= 1 && body.hits.length <= 2);
    for (const hit of body.hits) {
      t.deepEqual(Object.keys(hit).sort(), ["hops", "memoryId", "score", "snippet", "source", "title"]);
      t.true(hit.hops >= 0 && hit.hops <= 1);
    }
    t.is(body.hits[0]?.memoryId, contractId);
  }
});

test("POST /api/memory/recall with explain: every hit says each stage's rank and score", async (t) => {
  const res = await rest(url, "/api/memory/recall", {
    token: tenant.token,
    body: { ...query, explain: true },
  });
  t.is(res.status, 200, res.text);
  const [first] = (res.body as { hits: (Hit & { explanation?: Record<string, unknown> })[] }).hits;
  t.is(first?.memoryId, contractId);
  const explanation = first?.explanation ?? {};
  t.is(explanation.fulltextRank, 1);
  t.true(Array.isArray(explanation.matchedTerms) && explanation.matchedTerms.length > 0);
  t.is(typeof explanation.fusedScore, "number");
  t.is(explanation.hops, 0);
});

test("POST /api/v1/memory/recall: the bearer alias answers the same; a session there is 401", async (t) => {
  const res = await rest(url, "/api/v1/memory/recall", { token: tenant.token, body: query });
  t.is(res.status, 200, res.text);
  t.is((res.body as { hits: Hit[] }).hits[0]?.memoryId, contractId);
  const session = await rest(url, "/api/v1/memory/recall", { cookie, body: query });
  t.is(session.status, 401);
  t.regex(errorOf(session), /API token/);
});

test("POST /api/memory/recall: 401 without or with bad credentials, 403 without read scope", async (t) => {
  const anonymous = await rest(url, "/api/memory/recall", { body: query });
  t.is(anonymous.status, 401);
  t.regex(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);
  t.is((await rest(url, "/api/memory/recall", { token: `kmt_${"Z".repeat(43)}`, body: query })).status, 401);
  t.is(
    (
      await rest(url, "/api/memory/recall", {
        body: query,
        headers: { authorization: `Bearer  ${tenant.token}` },
      })
    ).status,
    401,
    "exactly one space after Bearer",
  );
  const writeOnly = (await tenant.issueToken(["write"], "write only")).token;
  const denied = await rest(url, "/api/memory/recall", { token: writeOnly, body: query });
  t.is(denied.status, 403);
  t.regex(errorOf(denied), /read/);
  const readOnly = (await tenant.issueToken(["read"], "read only")).token;
  t.is((await rest(url, "/api/memory/recall", { token: readOnly, body: query })).status, 200);
});

test("POST /api/memory/recall: 400 naming the field for bounds, blanks and unknown fields", async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ query: "x", k: 0 }, /^k: /],
    [{ query: "x", k: 26 }, /^k: /],
    [{ query: "x", hops: 4 }, /^hops: /],
    [{ query: "x", hops: -1 }, /^hops: /],
    [{ query: "" }, /^query: /],
    [{ query: "   " }, /^query: /],
    [{ k: 3 }, /^query: is required/],
    [{ query: "x", tenantId: tenant.tenantId }, /unknown field 'tenantId'/],
    [{ query: "x", as_of: "2026-01-01T00:00:00Z" }, /unknown field 'as_of'/],
  ];
  for (const [body, message] of cases) {
    const res = await rest(url, "/api/memory/recall", { token: tenant.token, body });
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(errorOf(res), message, JSON.stringify(body));
  }
  t.is((await rest(url, "/api/memory/recall", { token: tenant.token, body: "{oops" })).status, 400);
  t.is(
    (
      await rest(url, "/api/memory/recall", {
        token: tenant.token,
        body: "query=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      })
    ).status,
    415,
  );
});

test("POST /api/memory/recall: 429 with Retry-After once the token's per-minute limit is used up", async (t) => {
  const limited = await service.createTenant({
    plan: "api",
    limitsOverride: { requestsPerMinutePerToken: 2 },
  });
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 4; i++) {
    const res = await rest(url, "/api/memory/recall", { token: limited.token, body: { query: "x" } });
    statuses.push(res.status);
    if (res.status === 429) {
      retryAfter = res.headers.get("retry-after");
      t.truthy(errorOf(res));
    }
  }
  t.deepEqual(statuses.slice(0, 2), [200, 200]);
  t.is(statuses.at(-1), 429);
  t.regex(retryAfter ?? "", /^[1-9][0-9]*$/);
});

test("GET /api/v1/memory/recent: newest first with count; k bounds 1..50", async (t) => {
  const res = await rest(url, "/api/v1/memory/recent?k=2", { token: tenant.token });
  t.is(res.status, 200, res.text);
  const body = res.body as {
    items: { id: string; createdAt: string; kind: string; status: string }[];
    count: number;
  };
  t.is(body.items.length, 2);
  t.is(body.count, body.items.length);
  const [first, second] = body.items;
  t.true(Date.parse(first?.createdAt ?? "") >= Date.parse(second?.createdAt ?? ""));
  t.is(first?.kind, "entry");
  t.is(first?.status, "indexed");
  const all = (await rest(url, "/api/v1/memory/recent", { token: tenant.token })).body as { count: number };
  t.true(all.count >= 3);
  for (const k of ["0", "51", "abc", "2.5"]) {
    const bad = await rest(url, `/api/v1/memory/recent?k=${k}`, { token: tenant.token });
    t.is(bad.status, 400, k);
    t.regex(errorOf(bad), /^k: /, k);
  }
  t.is((await rest(url, "/api/v1/memory/recent?limit=5", { token: tenant.token })).status, 400);
  t.is((await rest(url, "/api/v1/memory/recent", { cookie })).status, 401);
});

test("GET /api/stats (Session) and /api/v1/stats (Bearer): integers, recall counted", async (t) => {
  await rest(url, "/api/memory/recall", { token: tenant.token, body: { query: "Urlaub" } });
  const stats = await waitFor(
    async () => {
      const res = await rest(url, "/api/stats", { cookie });
      const body = res.body as Stats;
      return res.status === 200 && body.queriesLast24h >= 1 ? body : undefined;
    },
    { what: "stats to count the recall" },
  );
  const { memoryLimit, memoriesUsed, warnAt80, ...counts } = stats as Stats & {
    memoryLimit: number | null;
    memoriesUsed: number;
    warnAt80: boolean;
  };
  t.deepEqual(Object.keys(counts).sort(), [
    "chunks",
    "edges",
    "memories",
    "p50Ms",
    "p99Ms",
    "queriesLast24h",
  ]);
  for (const value of Object.values(counts)) t.true(Number.isInteger(value) && value >= 0);
  // The quota fields of the MCP stats tool, for the dashboard's quota bar (additive).
  t.true(memoryLimit === null || Number.isInteger(memoryLimit));
  t.true(Number.isInteger(memoriesUsed));
  t.is(typeof warnAt80, "boolean");
  t.true(stats.memories >= 3);
  const v1 = await rest(url, "/api/v1/stats", { token: tenant.token });
  t.is(v1.status, 200, v1.text);
  t.true((v1.body as Stats).memories >= 3);
  const bearerOnSession = await rest(url, "/api/stats", { token: tenant.token });
  t.is(bearerOnSession.status, 401);
  t.regex(errorOf(bearerOnSession), /session/);
  t.is((await rest(url, "/api/stats")).status, 401);
});
