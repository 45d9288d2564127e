import test from "ava";
import fc from "fast-check";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";

// Issue 15, test/fuzz: hostile input for the REST routes, the MCP tools and the JSON-RPC envelope
// (wrong types, huge and negative numbers, 1e309, deep nesting, large strings, NUL and lone
// surrogates, __proto__ keys, wrong content types, truncated JSON) → only documented 4xx or 2xx
// answers (JSON-RPC errors other than -32603 internal error), never 500, never a hang; /health stays
// 200. Bounded: a fixed number of runs per target, each request with a deadline.

let service: TestService;
let tenant: TestTenant;
let memoryId: string;

test.before(async () => {
  service = await startTestService({ worker: false });
  tenant = await service.createTenant();
  const res = await fetch(`${service.httpUrl}/api/v1/memory/entries`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      memoryType: "semantic",
      title: "fuzz seed",
      content: "A seed memory for fuzzing.",
    }),
  });
  memoryId = ((await res.json()) as { id: string }).id;
});

test.after.always(async () => {
  await service?.stop();
});

const RUNS = 25;

/** A JSON value meant to break things. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\uD800",
    "\uDC00x",
    "x".repeat(200_000),
    -1,
    0,
    -2_147_483_649,
    2_147_483_648,
    Number.MAX_SAFE_INTEGER,
    1.5,
    1e300,
    true,
    null,
    [],
    {},
    { __proto__: { polluted: true } },
    "00000000-0000-4000-8000-000000000000",
    "not-a-uuid",
    "REFERENCES",
    "2026-13-45T99:99:99Z",
  ),
  fc.string({ unit: "binary", maxLength: 50 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A body: the valid one with one field replaced or added, or something else entirely. */
function hostileBody(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(valid), "__proto__", "constructor", "extra"];
  return fc.oneof(
    fc.record({ key: fc.constantFrom(...keys), value: hostileValue }).map(({ key, value }) => {
      const body: Record<string, unknown> = { ...valid };
      Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
      return body;
    }),
    hostileValue,
  );
}

/** Tried in every field of every route, not left to chance. */
const EVERY_FIELD: readonly unknown[] = [
  "\u0000",
  "a\u0000b",
  "\uD800",
  "",
  -1,
  2_147_483_648,
  1e300,
  [],
  {},
  null,
];

function everyFieldVariant(template: Record<string, unknown>): Record<string, unknown>[] {
  return Object.keys(template).flatMap((key) => EVERY_FIELD.map((value) => ({ ...template, [key]: value })));
}

/** Raw texts no JSON encoder would write. */
const RAW_BODIES = [
  '{"query": 1e309}',
  '{"k": 1e309, "query": "x"}',
  '{"query": "x"',
  "{",
  '{"__proto__": {"admin": true}, "query": "x"}',
  '{"constructor": {"prototype": {"x": 1}}, "query": "x"}',
  `${"[".repeat(5000)}${"]".repeat(5000)}`,
  `{"query": ${'{"a":'.repeat(2000)}1${"}".repeat(2000)}}`,
  '"just a string"',
  "null",
  "\u0000",
];

interface Answer {
  readonly status: number;
  readonly text: string;
}

async function send(
  method: string,
  path: string,
  body: string | undefined,
  contentType = "application/json",
): Promise<Answer> {
  const res = await fetch(`${service.httpUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.token}`,
      ...(body === undefined ? {} : { "content-type": contentType }),
    },
    ...(body === undefined ? {} : { body }),
    // "Never a hang": a request that takes longer fails the property.
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

const documented = (a: Answer) => a.status < 500;

const JSON_ROUTES: readonly (readonly [string, string, Record<string, unknown>])[] = [
  ["POST", "/api/v1/memory/recall", { query: "seed", k: 5, hops: 1 }],
  ["POST", "/api/memory/recall", { query: "seed" }],
  [
    "POST",
    "/api/v1/memory/entries",
    { memoryType: "semantic", title: "t", content: "c", tags: ["a"], source: "s" },
  ],
  ["POST", "/api/v1/documents", { title: "doc", content: "text", source: "s", metadata: { a: 1 } }],
  ["POST", "/api/v1/relations", { fromId: "$id", toId: "$id", relType: "REFERENCES" }],
  ["POST", "/api/v1/memory/$id/versions", { newTitle: "t", newContent: "c", updateReason: "r" }],
];

for (const [method, rawPath, valid] of JSON_ROUTES) {
  test.serial(
    `REST ${method} ${rawPath}: hostile JSON bodies get documented answers, never 5xx`,
    async (t) => {
      const path = rawPath.replace("$id", memoryId);
      const template = JSON.parse(JSON.stringify(valid).replaceAll("$id", memoryId)) as Record<
        string,
        unknown
      >;
      await fc.assert(
        fc.asyncProperty(hostileBody(template), async (body) => {
          const answer = await send(method, path, JSON.stringify(body));
          if (!documented(answer))
            t.log(`${answer.status} for ${JSON.stringify(body).slice(0, 300)}: ${answer.text.slice(0, 300)}`);
          return documented(answer);
        }),
        { numRuns: RUNS },
      );
      for (const body of everyFieldVariant(template)) {
        const answer = await send(method, path, JSON.stringify(body));
        t.true(
          documented(answer),
          `${answer.status} for ${JSON.stringify(body).slice(0, 200)}: ${answer.text.slice(0, 200)}`,
        );
      }
      for (const raw of RAW_BODIES) {
        const answer = await send(method, path, raw);
        t.true(
          documented(answer),
          `${answer.status} for raw ${raw.slice(0, 40)}: ${answer.text.slice(0, 200)}`,
        );
      }
      for (const type of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
        "multipart/form-data",
      ]) {
        const answer = await send(method, path, JSON.stringify(template), type);
        t.true(documented(answer), `${answer.status} for content type ${type}: ${answer.text.slice(0, 200)}`);
      }
      const huge = await send(
        method,
        path,
        JSON.stringify({ ...template, content: "x".repeat(5 * 1024 * 1024) }),
      );
      t.true(documented(huge), `${huge.status} for a 5 MB body`);
    },
  );
}

test.serial("REST query strings and path parameters: hostile values get documented answers", async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: "binary", maxLength: 60 }), fc.integer(), async (text, n) => {
      const q = encodeURIComponent(text);
      const answers = await Promise.all([
        send("GET", `/api/v1/memory/recent?k=${q}`, undefined),
        send("GET", `/api/v1/memory/recent?k=${n}`, undefined),
        send("GET", `/api/v1/memory/${q || "x"}/relations`, undefined),
        send("DELETE", `/api/v1/relations?fromId=${q}&toId=${memoryId}&relType=${q}`, undefined),
      ]);
      for (const a of answers)
        if (!documented(a)) t.log(`${a.status} for ${JSON.stringify(text)}: ${a.text.slice(0, 200)}`);
      return answers.every(documented);
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

const TOOLS: Record<string, Record<string, unknown>> = {
  service_recall: { query: "seed", k: 5, hops: 1 },
  service_recall_at_time: { query: "seed", as_of: "2026-01-01T00:00:00Z", k: 5 },
  service_list_relations: { memory_id: "$id" },
  service_list_recent: { k: 5 },
  service_store_memory: { title: "t", content: "c", memory_type: "semantic", tags: ["a"], source: "s" },
  service_upload_document: { title: "d", content: "text", source: "s" },
  service_update_fact: { target_id: "$id", new_title: "t", new_content: "c" },
  service_link: { from_id: "$id", to_id: "$id", rel_type: "REFERENCES" },
  service_unlink: { from_id: "$id", to_id: "$id", rel_type: "REFERENCES" },
  service_stats: {},
  service_health: {},
};

async function mcp(body: string, contentType = "application/json"): Promise<Answer> {
  const res = await fetch(`${service.httpUrl}/api/mcp/v1`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tenant.token}`,
      "content-type": contentType,
      accept: "application/json, text/event-stream",
    },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

/** A documented MCP answer: no 5xx, and no JSON-RPC -32603 other than the spec's content reasons. */
function mcpDocumented(answer: Answer): boolean {
  if (answer.status >= 500) return false;
  if (!answer.text.includes('"error"')) return true;
  const match = /"code":(-?\d+)/.exec(answer.text);
  if (!match || match[1] !== "-32603") return true;
  return /"reason":"(content_required|too_large)"/.test(answer.text);
}

test.serial(
  "MCP tools: hostile arguments get JSON-RPC errors, never -32603 internal error or 5xx",
  async (t) => {
    for (const [name, valid] of Object.entries(TOOLS)) {
      const template = JSON.parse(JSON.stringify(valid).replaceAll("$id", memoryId)) as Record<
        string,
        unknown
      >;
      await fc.assert(
        fc.asyncProperty(hostileBody(template), async (args) => {
          const answer = await mcp(
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name, arguments: args },
            }),
          );
          if (!mcpDocumented(answer))
            t.log(
              `${name}: ${answer.status} for ${JSON.stringify(args).slice(0, 300)}: ${answer.text.slice(0, 300)}`,
            );
          return mcpDocumented(answer);
        }),
        { numRuns: 10 },
      );
      for (const args of everyFieldVariant(template)) {
        const answer = await mcp(
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
        );
        t.true(
          mcpDocumented(answer),
          `${name}: ${answer.status} for ${JSON.stringify(args).slice(0, 200)}: ${answer.text.slice(0, 200)}`,
        );
      }
    }
    t.pass();
  },
);

test.serial("MCP JSON-RPC envelope: hostile envelopes and raw texts get documented answers", async (t) => {
  const envelope = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  await fc.assert(
    fc.asyncProperty(hostileBody(envelope), async (body) => {
      const answer = await mcp(JSON.stringify(body));
      if (!mcpDocumented(answer))
        t.log(`${answer.status} for ${JSON.stringify(body).slice(0, 300)}: ${answer.text.slice(0, 300)}`);
      return mcpDocumented(answer);
    }),
    { numRuns: RUNS * 2 },
  );
  for (const raw of [
    ...RAW_BODIES,
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1e309,"method":"ping"}',
  ]) {
    const answer = await mcp(raw);
    t.true(
      mcpDocumented(answer),
      `${answer.status} for raw ${raw.slice(0, 40)}: ${answer.text.slice(0, 200)}`,
    );
  }
  const wrongType = await mcp(JSON.stringify(envelope), "text/plain");
  t.true(mcpDocumented(wrongType), `${wrongType.status} for text/plain`);
});

test.serial("the fuzzing reaches core: a valid recall is 200 and NUL in it is 400", async (t) => {
  t.is((await send("POST", "/api/v1/memory/recall", JSON.stringify({ query: "seed" }))).status, 200);
  t.is((await send("POST", "/api/v1/memory/recall", JSON.stringify({ query: "se\u0000ed" }))).status, 400);
});

test.serial("after all of it, /health is still 200", async (t) => {
  t.is((await fetch(`${service.httpUrl}/health`, { signal: AbortSignal.timeout(5000) })).status, 200);
});
