import type { MessageInitShape } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { ALL_STAGES } from "../../core/recall/recall-options.js";
import { runRecall } from "../../core/recall/run-recall.js";
import { MemoryKind, MemoryType } from "../../gen/memory/v1/memory_pb.js";
import { RecallFilterSchema, TagMatch } from "../../gen/memory/v1/recall_service_pb.js";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { type ConnectedClient, callTool, connectSdkClient } from "../mcp/sdk-client.js";
import { clientsFor, errorField, startRecallService, type TenantClients } from "./recall-test-kit.js";

// Recall filters (issue 22, ADR 0220) through gRPC, REST (fetch) and MCP (the official SDK client):
// 200 memories that match the query strongly but not the filter, 15 weaker ones that match it.

let service: TestService;
let tenant: TestTenant;
let other: TestTenant;
let clients: TenantClients;
let otherClients: TenantClients;
let mcp: ConnectedClient;
/** Before the 15 board memories were stored, after the 200 finance ones. */
let between: Date;
const noise: string[] = [];
const board: string[] = [];
const documents: string[] = [];
let protocol = "";
const otherBoard: string[] = [];

const QUERY = "Quartalsbericht Umsatz";
const boardTags = (i: number) => ["board", i % 2 === 0 ? "q3" : "q4"];

test.before(async () => {
  service = await startRecallService();
  tenant = await service.createTenant();
  other = await service.createTenant();
  clients = clientsFor(service, tenant);
  otherClients = clientsFor(service, other);
  for (let i = 0; i < 200; i++) {
    const stored = await clients.ingest.storeMemory({
      title: `Finanzbericht ${i}`,
      content: `Quartalsbericht ${i}: Der Quartalsbericht zeigt Umsatz, Umsatz je Region und den Quartalsbericht des Vorjahres.`,
      memoryType: MemoryType.SEMANTIC,
      tags: ["finance", `n${i % 4}`],
      source: `https://intranet.example.com/reports/${i}`,
    });
    noise.push(stored.memory?.memoryId ?? "");
  }
  // created_at is the inserting transaction's start; the next stores begin after this instant.
  between = new Date();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 15; i++) {
    const stored = await clients.ingest.storeMemory({
      title: `Vorstandssitzung ${i}`,
      content: `Vorstandssitzung ${i}: Im Vorstand wurde der Quartalsbericht kurz besprochen.`,
      memoryType: MemoryType.EPISODIC,
      tags: boardTags(i),
      source: `https://wiki.example.com/board/${i}`,
    });
    board.push(stored.memory?.memoryId ?? "");
  }
  for (let i = 0; i < 3; i++) {
    const uploaded = await clients.ingest.uploadDocument({
      title: `Handbuch ${i}`,
      content: `Handbuch ${i}: Vorlage für den Quartalsbericht und die Umsatz-Tabellen.`,
      source: `file:///docs/handbook-${i}.md`,
    });
    documents.push(uploaded.memory?.memoryId ?? "");
  }
  // A board memory without the query's words, reached from board[0] over the graph.
  protocol =
    (
      await clients.ingest.storeMemory({
        title: "Anwesenheit",
        content: "Anwesend waren alle Mitglieder; Beginn um neun Uhr, Ende gegen Mittag.",
        memoryType: MemoryType.EPISODIC,
        tags: ["board", "q3"],
        source: "https://wiki.example.com/board/protokoll",
      })
    ).memory?.memoryId ?? "";
  await clients.graph.link({ fromId: board[0] ?? "", toId: protocol, relType: "REFERENCES" });
  await clients.graph.link({ fromId: board[0] ?? "", toId: noise[0] ?? "", relType: "REFERENCES" });
  for (let i = 0; i < 3; i++) {
    const stored = await otherClients.ingest.storeMemory({
      title: `Vorstandssitzung ${i}`,
      content: `Vorstandssitzung ${i}: Im Vorstand wurde der Quartalsbericht kurz besprochen.`,
      memoryType: MemoryType.EPISODIC,
      tags: ["board"],
      source: `https://wiki.example.com/board/${i}`,
    });
    otherBoard.push(stored.memory?.memoryId ?? "");
  }
  mcp = await connectSdkClient(service.httpUrl, tenant.token, "json");
});

test.after.always(async () => {
  await mcp?.close();
  await service?.stop();
});

type FilterInit = MessageInitShape<typeof RecallFilterSchema>;

async function recallIds(filter: FilterInit | undefined, k = 10, extra: { hops?: number } = {}) {
  const response = await clients.recall.recall({
    query: QUERY,
    k,
    ...extra,
    ...(filter ? { filter: create(RecallFilterSchema, filter) } : {}),
  });
  return response.hits.map((h) => h.memoryId);
}

const within = (ids: readonly string[], allowed: readonly string[]) =>
  ids.every((id) => allowed.includes(id));

test("without a filter the 200 strong lexical matches fill the top 10", async (t) => {
  const ids = await recallIds(undefined);
  t.is(ids.length, 10);
  t.true(within(ids, noise), "the board memories rank below");
});

test("gRPC memory_types: a selective filter still returns k hits, all matching", async (t) => {
  const ids = await recallIds({ memoryTypes: [MemoryType.EPISODIC] }, 10, { hops: 0 });
  t.is(ids.length, 10);
  t.true(within(ids, [...board, protocol]), JSON.stringify(ids));
});

test("gRPC tags: any of them, or all of them", async (t) => {
  const any = await recallIds({ tags: ["board", "nothing"] }, 10, { hops: 0 });
  t.is(any.length, 10);
  t.true(within(any, [...board, protocol]));
  const all = await recallIds({ tags: ["board", "q3"], tagsMatch: TagMatch.ALL }, 25, { hops: 0 });
  const q3 = board.filter((_, i) => i % 2 === 0);
  t.deepEqual([...all].sort(), [...q3, protocol].sort(), "the eight q3 board memories and the Protokoll");
});

test("gRPC origin is a case-sensitive prefix of the ingest source", async (t) => {
  const ids = await recallIds({ origin: "https://wiki.example.com/board/1" }, 25, { hops: 0 });
  t.deepEqual([...ids].sort(), [1, 10, 11, 12, 13, 14].map((i) => board[i] ?? "").sort());
  t.deepEqual(await recallIds({ origin: "HTTPS://wiki.example.com/" }, 10, { hops: 0 }), []);
  const files = await recallIds({ origin: "file:///docs/" }, 10, { hops: 0 });
  t.deepEqual([...files].sort(), [...documents].sort());
});

test("gRPC created_after / created_before split the memories at an instant", async (t) => {
  const after = await recallIds({ createdAfter: timestampFromDate(between) }, 10, { hops: 0 });
  t.is(after.length, 10);
  t.true(within(after, [...board, ...documents, protocol]));
  const before = await recallIds({ createdBefore: timestampFromDate(between) }, 10, { hops: 0 });
  t.is(before.length, 10);
  t.true(within(before, noise));
});

test("gRPC kinds: documents only", async (t) => {
  const ids = await recallIds({ kinds: [MemoryKind.DOCUMENT] }, 10, { hops: 0 });
  t.deepEqual([...ids].sort(), [...documents].sort());
});

test("gRPC: filters combine (every condition must hold)", async (t) => {
  const ids = await recallIds(
    {
      memoryTypes: [MemoryType.EPISODIC, MemoryType.REFERENCE],
      tags: ["board", "q4"],
      tagsMatch: TagMatch.ALL,
      origin: "https://wiki.example.com/",
      createdAfter: timestampFromDate(between),
      kinds: [MemoryKind.ENTRY],
    },
    25,
    { hops: 0 },
  );
  const q4 = board.filter((_, i) => i % 2 === 1);
  t.deepEqual([...ids].sort(), [...q4].sort());
});

test("graph neighbours must match the filter too; explain names the path", async (t) => {
  const response = await clients.recall.recall({
    query: "Vorstandssitzung 0 Quartalsbericht",
    k: 25,
    hops: 1,
    explain: true,
    // Without the vector channel the Protokoll (none of the query's words) is reached only over the graph.
    stages: { disableVector: true },
    filter: create(RecallFilterSchema, { memoryTypes: [MemoryType.EPISODIC] }),
  });
  const ids = response.hits.map((h) => h.memoryId);
  t.false(ids.includes(noise[0] ?? ""), "the semantic neighbour is filtered out");
  t.true(within(ids, [...board, protocol]));
  const reached = response.hits.find((h) => h.memoryId === protocol);
  t.is(reached?.source, "graph");
  t.deepEqual(reached?.explanation?.graphPath, ["REFERENCES"]);
  t.is(reached?.explanation?.graphSeedId, board[0]);
  t.is(reached?.explanation?.hops, 1);
  const direct = response.hits.find((h) => h.memoryId === board[0]);
  t.deepEqual(direct?.explanation?.graphPath, []);
  t.is(direct?.explanation?.graphSeedId, undefined);
});

test("point-in-time recall applies the filter to the versions valid then", async (t) => {
  const response = await clients.recall.recall({
    query: QUERY,
    k: 10,
    hops: 0,
    asOf: timestampFromDate(new Date()),
    filter: create(RecallFilterSchema, { tags: ["board"] }),
  });
  t.is(response.hits.length, 10);
  t.true(
    within(
      response.hits.map((h) => h.memoryId),
      board,
    ),
  );
  const before = await clients.recall.recall({
    query: QUERY,
    k: 10,
    asOf: timestampFromDate(between),
    filter: create(RecallFilterSchema, { tags: ["board"] }),
  });
  t.deepEqual(before.hits, [], "no board memory existed yet");
});

test("tenant isolation: a filter never reaches another workspace's memories", async (t) => {
  const mine = await recallIds({ origin: "https://wiki.example.com/board/0" }, 25, { hops: 0 });
  t.deepEqual(mine, [board[0]]);
  const theirs = await otherClients.recall.recall({
    query: QUERY,
    k: 25,
    filter: create(RecallFilterSchema, { tags: ["board"], memoryTypes: [MemoryType.EPISODIC] }),
  });
  t.deepEqual([...theirs.hits.map((h) => h.memoryId)].sort(), [...otherBoard].sort());
});

test("the listed, over-fetch and join paths give the same hits", async (t) => {
  const deps = {
    db: service.storage.db,
    vectors: service.storage.vectors,
    embedder: service.models.embedder,
    reranker: service.models.reranker,
    lexicon: service.models.lexicon,
    logger: createLogger("silent"),
  };
  const filters = [
    { memoryTypes: ["episodic"] },
    { tags: { values: ["finance"], match: "any" as const } },
    { tags: { values: ["board", "q4"], match: "all" as const }, origin: "https://wiki." },
  ];
  for (const filter of filters) {
    const options = { query: QUERY, k: 10, hops: 0, stages: ALL_STAGES, filter };
    const listed = await runRecall(deps, tenant.tenantId, options);
    const overfetched = await runRecall(
      { ...deps, filterTuning: { listedMax: 0 } },
      tenant.tenantId,
      options,
    );
    t.deepEqual(
      overfetched.hits.map((h) => h.memoryId),
      listed.hits.map((h) => h.memoryId),
      JSON.stringify(filter),
    );
    t.true(listed.timings.some((s) => s.stage === "filter"));
  }
});

test("REST: filters in camelCase, and validation answers 400 naming the field", async (t) => {
  const post = (body: unknown) =>
    fetch(`${service.httpUrl}/api/memory/recall`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const ok = await post({
    query: QUERY,
    k: 10,
    hops: 0,
    memoryTypes: ["episodic"],
    tags: ["board"],
    tagsMatch: "any",
    origin: "https://wiki.example.com/",
    createdAfter: between.toISOString(),
    createdBefore: new Date(Date.now() + 60_000).toISOString(),
    kinds: ["entry"],
  });
  t.is(ok.status, 200);
  const body = (await ok.json()) as { hits: { memoryId: string }[] };
  t.is(body.hits.length, 10);
  t.true(
    within(
      body.hits.map((h) => h.memoryId),
      board,
    ),
  );
  const v1 = await fetch(`${service.httpUrl}/api/v1/memory/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: QUERY, kinds: ["document"] }),
  });
  t.is(v1.status, 200);
  t.true(
    within(
      ((await v1.json()) as { hits: { memoryId: string }[] }).hits.map((h) => h.memoryId),
      documents,
    ),
  );

  const refusals: [unknown, RegExp][] = [
    [{ query: QUERY, memoryTypes: ["diary"] }, /memoryTypes/],
    [{ query: QUERY, kinds: ["page"] }, /kinds/],
    [{ query: QUERY, createdAfter: "yesterday" }, /createdAfter/],
    [{ query: QUERY, createdBefore: "2025-03-01T12:00:00" }, /createdBefore/],
    [
      { query: QUERY, createdAfter: "2025-03-02T00:00:00Z", createdBefore: "2025-03-01T00:00:00Z" },
      /createdAfter.*earlier than createdBefore/,
    ],
    [{ query: QUERY, tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, /tags.*at most 64/],
    [{ query: QUERY, tags: ["x".repeat(101)] }, /tags/],
    [{ query: QUERY, origin: "x".repeat(2049) }, /origin.*at most 2048/],
    [{ query: QUERY, origin: "" }, /origin/],
    [{ query: QUERY, tagsMatch: "some", tags: ["a"] }, /tagsMatch/],
    [{ query: QUERY, memory_types: ["episodic"] }, /memory_types/],
  ];
  for (const [request, message] of refusals) {
    const response = await post(request);
    t.is(response.status, 400, JSON.stringify(request));
    const error = ((await response.json()) as { error: string }).error;
    t.regex(error, message);
  }
});

interface McpHits {
  hits: { memory_id: string; valid_from?: string }[];
}

test("MCP service_recall and service_recall_at_time take the filters in snake_case", async (t) => {
  const recall = await callTool<McpHits>(mcp.client, "service_recall", {
    query: QUERY,
    k: 10,
    hops: 0,
    memory_types: ["episodic"],
    tags: ["board", "q3"],
    tags_match: "all",
    origin: "https://wiki.example.com/board/",
    created_after: between.toISOString(),
    kinds: ["entry"],
  });
  t.deepEqual(
    [...recall.hits.map((h) => h.memory_id)].sort(),
    [...board.filter((_, i) => i % 2 === 0), protocol].sort(),
  );
  const atTime = await callTool<McpHits>(mcp.client, "service_recall_at_time", {
    query: QUERY,
    k: 10,
    as_of: new Date().toISOString(),
    tags: ["board"],
    created_before: new Date(Date.now() + 60_000).toISOString(),
  });
  t.is(atTime.hits.length, 10);
  t.true(
    within(
      atTime.hits.map((h) => h.memory_id),
      board,
    ),
  );
  t.true(atTime.hits.every((h) => typeof h.valid_from === "string"));
  const before = await callTool<McpHits>(mcp.client, "service_recall_at_time", {
    query: QUERY,
    as_of: new Date().toISOString(),
    created_before: between.toISOString(),
    kinds: ["document"],
  });
  t.deepEqual(before.hits, []);
});

test("MCP: bad filter arguments are -32602 naming the argument", async (t) => {
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ memory_types: ["diary"] }, /memory_types/],
    [{ created_after: "yesterday" }, /created_after/],
    [{ created_after: "2025-03-02", created_before: "2025-03-01" }, /created_after: must be earlier/],
    [{ tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, /tags/],
    [{ origin: "x".repeat(2049) }, /origin/],
    [{ kinds: ["document", "entry", "document"] }, /kinds/],
    [{ tags_match: "all" }, /tags_match/],
  ];
  for (const tool of ["service_recall", "service_recall_at_time"]) {
    for (const [args, message] of refusals) {
      const error = await t.throwsAsync(
        mcp.client.callTool({ name: tool, arguments: { query: QUERY, ...args } }),
      );
      t.is((error as { code?: number }).code, -32602, `${tool} ${JSON.stringify(args)}`);
      t.regex(error?.message ?? "", message);
    }
  }
});

test("gRPC: bad filters are INVALID_ARGUMENT naming the field", async (t) => {
  const cases: [FilterInit, string][] = [
    [{ memoryTypes: [99 as MemoryType] }, "filter.memory_types[0]"],
    [{ memoryTypes: [MemoryType.UNSPECIFIED] }, "filter.memory_types[0]"],
    [{ kinds: [7 as MemoryKind] }, "filter.kinds[0]"],
    [{ tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, "filter.tags"],
    [{ tags: [""] }, "filter.tags[0]"],
    [{ origin: "x".repeat(2049) }, "filter.origin"],
    [
      {
        createdAfter: timestampFromDate(new Date("2025-03-02T00:00:00Z")),
        createdBefore: timestampFromDate(new Date("2025-03-01T00:00:00Z")),
      },
      "filter.created_after",
    ],
    [{ tagsMatch: TagMatch.ALL }, "filter.tags"],
  ];
  for (const [filter, field] of cases) {
    const error = await t.throwsAsync(
      clients.recall.recall({ query: QUERY, filter: create(RecallFilterSchema, filter) }),
    );
    const details = errorField(error);
    t.is(
      details.code,
      Code.InvalidArgument,
      JSON.stringify(filter, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
    );
    t.is(details.field, field);
  }
});
