import test, { type ExecutionContext } from "ava";
import type { z } from "zod";
import type { eraseMemoryOutput } from "../../gateway-mcp/tools/erase-memory.js";
import type { fetchedWebPageSchema } from "../../gateway-mcp/tools/fetch-web-page.js";
import type { linkOutput } from "../../gateway-mcp/tools/link.js";
import type { listRecentOutput } from "../../gateway-mcp/tools/list-recent.js";
import type { listRelationsOutput } from "../../gateway-mcp/tools/list-relations.js";
import type { recallOutput } from "../../gateway-mcp/tools/recall.js";
import type { recallAtTimeOutput } from "../../gateway-mcp/tools/recall-at-time.js";
import type { statsOutput } from "../../gateway-mcp/tools/stats.js";
import type { storedConversationSchema } from "../../gateway-mcp/tools/store-conversation.js";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import type { unlinkOutput } from "../../gateway-mcp/tools/unlink.js";
import type { updateFactOutput } from "../../gateway-mcp/tools/update-fact.js";
import type {
  storedMemorySchema,
  uploadedDocumentSchema,
} from "../../gateway-mcp/translate/stored-memory-result.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { articlePage, startWebPageServer, type WebPageServer } from "../ingest/web-page-server.js";
import { UNTHROTTLED } from "./post-mcp.js";
import {
  type ConnectedClient,
  callTool,
  connectSdkClient,
  REVISION_OF_MODE,
  type TransportMode,
} from "./sdk-client.js";
import { switchableModels } from "./switchable-embedder.js";

// Every tool, prompt and error case driven through the official SDK clients over Streamable HTTP, in
// every revision the endpoint speaks (issue 47, item 6): the 1.x client on 2025-11-25 with plain
// JSON answers (the default) and with SSE answers, the 1.x client on 2025-06-18 (the spec's
// revision), and the 2.x client on 2026-07-28 (stateless, per-request _meta).

const MODES = ["json", "sse", "2025-06-18", "2026-07-28"] as const satisfies readonly TransportMode[];

type Stored = z.output<typeof storedMemorySchema>;
type Uploaded = z.output<typeof uploadedDocumentSchema>;
type Recall = z.output<typeof recallOutput>;
type RecallAtTime = z.output<typeof recallAtTimeOutput>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let service: TestService;
let pages: WebPageServer;
let tenant: TestTenant;
let readOnlyToken: string;
const clients = new Map<TransportMode, ConnectedClient>();
const readOnlyClients = new Map<TransportMode, ConnectedClient>();

test.before(async () => {
  // The word-hashing test embedder: recall matches by words, starts in milliseconds, and the
  // built-in embedder's own quality is tested with ingest and recall.
  // A local web server for service_fetch_web_page, reachable by the allowance the fetch tests use.
  pages = await startWebPageServer();
  service = await startTestService({
    models: switchableModels(),
    env: { WEB_FETCH_ALLOW_PRIVATE_URLS: "true" },
  });
  // admin for service_erase_memory; the read-only token below covers the scope refusals.
  tenant = await service.createTenant({ scopes: ["read", "write", "admin"], limitsOverride: UNTHROTTLED });
  readOnlyToken = (await tenant.issueToken(["read"], "read only")).token;
  for (const mode of MODES) {
    clients.set(mode, await connectSdkClient(service.httpUrl, tenant.token, mode));
    readOnlyClients.set(mode, await connectSdkClient(service.httpUrl, readOnlyToken, mode));
  }
});

test.after.always(async () => {
  for (const connected of [...clients.values(), ...readOnlyClients.values()]) await connected.close();
  await service?.stop();
  await pages?.close();
});

function clientFor(mode: TransportMode) {
  const connected = clients.get(mode);
  if (!connected) throw new Error("not connected");
  return connected.client;
}

/** A word no other test uses, so recall finds exactly this test's memories. */
function uniqueWord(): string {
  return `zq${Math.random().toString(36).slice(2, 10)}`;
}

/** A JSON-RPC error as either SDK line raises it (1.x McpError, 2.x ProtocolError): code and data. */
interface RpcFailure extends Error {
  readonly code: number;
  readonly data?: unknown;
}

async function rejectsWith(
  t: ExecutionContext,
  promise: Promise<unknown>,
  code: number,
  what: string,
): Promise<RpcFailure> {
  const error = await t.throwsAsync(promise, undefined, what);
  if (!error) throw new Error(`${what} did not fail`);
  const failure = error as RpcFailure;
  t.is(failure.code, code, `${what}: ${error.message}`);
  return failure;
}

for (const mode of MODES) {
  test(`${mode}: connecting negotiates ${REVISION_OF_MODE[mode]} and reads server info, capabilities and instructions`, (t) => {
    const connected = clients.get(mode);
    t.is(connected?.protocolVersion, REVISION_OF_MODE[mode]);
    t.like(connected?.client.getServerVersion(), { name: "memory-service", version: "0.0.0-test" });
    t.truthy(connected?.client.getServerCapabilities()?.tools);
    t.truthy(connected?.client.getServerCapabilities()?.prompts);
    t.regex(connected?.client.getInstructions() ?? "", /service_recall/);
  });

  test(`${mode}: every POST answer arrived in the ${mode === "sse" ? "sse" : "json"} format`, async (t) => {
    await clientFor(mode).ping();
    const types = clients.get(mode)?.answerTypes.filter(Boolean) ?? [];
    t.true(types.length > 0);
    for (const type of types) t.regex(type, mode === "sse" ? /^text\/event-stream/ : /^application\/json/);
  });

  test(`${mode}: every request was framed as ${REVISION_OF_MODE[mode]} frames it`, async (t) => {
    await clientFor(mode).listTools();
    const bodies = (clients.get(mode)?.sentBodies ?? []).map(
      (body) => JSON.parse(body) as { method?: string; params?: { _meta?: Record<string, unknown> } },
    );
    const methods = bodies.map((body) => body.method);
    if (mode === "2026-07-28") {
      // Stateless: no handshake; server/discover first, the version in every request's _meta.
      t.false(methods.includes("initialize"));
      t.is(methods[0], "server/discover");
      for (const body of bodies.filter((b) => b.method !== undefined)) {
        t.is(body.params?._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28", body.method);
      }
    } else {
      t.is(methods[0], "initialize");
      t.false(methods.includes("server/discover"));
    }
  });

  test(`${mode}: tools/list gives every tool with input and output schemas, a title and all four hints`, async (t) => {
    const { tools } = await clientFor(mode).listTools();
    t.deepEqual(
      tools.map((tool) => tool.name),
      TOOLS.map((tool) => tool.name),
    );
    for (const tool of tools) {
      t.is(tool.inputSchema.type, "object");
      t.is(tool.outputSchema?.type, "object");
      t.truthy(tool.title, tool.name);
      t.is(tool.annotations?.title, tool.title, tool.name);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint"] as const)
        t.is(typeof tool.annotations?.[hint], "boolean", `${tool.name} ${hint}`);
      t.is(tool.annotations?.openWorldHint, tool.name === "service_fetch_web_page", tool.name);
      // Icons from 2025-11-25 on (SEP-973); 2025-06-18's Tool has none.
      if (mode === "2025-06-18") t.is(tool.icons, undefined, tool.name);
      else t.regex(tool.icons?.[0]?.src ?? "", /^data:image\/svg\+xml;base64,/, tool.name);
    }
  });

  test(`${mode}: tools/list answers the same list in the same order every time`, async (t) => {
    const first = await clientFor(mode).listTools();
    const second = await clientFor(mode).listTools();
    t.deepEqual(second, first);
    t.deepEqual(
      first.tools.map((tool) => tool.name),
      TOOLS.map((tool) => tool.name),
    );
  });

  test(`${mode}: service_store_memory stores a memory that service_recall finds`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    const stored = await callTool<Stored>(client, "service_store_memory", {
      title: `Deploy window ${word}`,
      content: `Production deploys for project ${word} happen on Tuesdays after 14:00.`,
      memory_type: "procedural",
      tags: ["deploy", "ops"],
      source: "conversation with Anna",
    });
    t.regex(stored.memory_id, UUID);
    t.is(stored.id, stored.memory_id);
    t.is(stored.title, `Deploy window ${word}`);
    t.is(stored.status, "indexed");
    t.true(stored.chunks_written >= 1);
    t.truthy(stored.embedding_provider);
    t.is(typeof stored.memoriesUsed, "number");
    t.is(typeof stored.warnAt80, "boolean");

    const recalled = await callTool<Recall>(client, "service_recall", { query: `deploys ${word}` });
    const hit = recalled.hits.find((h) => h.memory_id === stored.memory_id);
    t.truthy(hit, "the stored memory is recalled");
    t.regex(hit?.content ?? "", new RegExp(word));
    t.is(hit?.title, stored.title);
    t.is(typeof hit?.score, "number");
    t.truthy(hit?.source);
    t.true(Number.isInteger(recalled.elapsed_ms));
  });

  test(`${mode}: storing byte-identical content again reports unchanged with the same id`, async (t) => {
    const client = clientFor(mode);
    const args = { title: `Fact ${uniqueWord()}`, content: `The office Wi-Fi is called ${uniqueWord()}.` };
    const first = await callTool<Stored>(client, "service_store_memory", args);
    const again = await callTool<Stored>(client, "service_store_memory", args);
    t.is(again.memory_id, first.memory_id);
    t.is(again.unchanged, true);
  });

  test(`${mode}: service_recall honours k and hops`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    for (let i = 0; i < 4; i++) {
      await callTool(client, "service_store_memory", {
        title: `${word} note ${i}`,
        content: `${word} detail number ${i}.`,
      });
    }
    const two = await callTool<Recall>(client, "service_recall", { query: word, k: 2, hops: 0 });
    t.is(two.hits.length, 2);
    const all = await callTool<Recall>(client, "service_recall", { query: word });
    t.true(all.hits.length >= 4 && all.hits.length <= 5, "default k is 5");
    t.true(
      all.hits.every((h) => h.explanation === undefined),
      "no explanation unless asked",
    );
    const explained = await callTool<Recall>(client, "service_recall", { query: word, k: 2, explain: true });
    const why = explained.hits[0]?.explanation;
    t.is(typeof why?.fused_score, "number");
    t.true(why?.fulltext_rank !== undefined || why?.vector_rank !== undefined);
    t.true(Array.isArray(why?.matched_terms));
  });

  test(`${mode}: service_list_recent lists the newest first with a count`, async (t) => {
    const client = clientFor(mode);
    const stored = await callTool<Stored>(client, "service_store_memory", {
      content: `Newest ${uniqueWord()}`,
    });
    const recent = await callTool<z.output<typeof listRecentOutput>>(client, "service_list_recent", {
      k: 50,
    });
    t.is(recent.count, recent.items.length);
    t.true(recent.items.some((item) => item.id === stored.memory_id));
    const times = recent.items.map((item) => Date.parse(item.created_at));
    t.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    const one = await callTool<z.output<typeof listRecentOutput>>(client, "service_list_recent", { k: 1 });
    t.is(one.items.length, 1);
    t.like(one.items[0], { status: "indexed" });
  });

  test(`${mode}: service_stats reports counts and quota`, async (t) => {
    const client = clientFor(mode);
    await callTool(client, "service_store_memory", { content: `Counted ${uniqueWord()}` });
    const stats = await callTool<z.output<typeof statsOutput>>(client, "service_stats");
    t.true(stats.memories >= 1);
    t.true(stats.chunks >= 1);
    t.true(stats.edges >= 0);
    t.true(stats.memoriesUsed >= 1);
    t.true(stats.memoryLimit === null || stats.memoryLimit >= stats.memoriesUsed);
  });

  test(`${mode}: service_upload_document replaces a document with the same title`, async (t) => {
    const client = clientFor(mode);
    const title = `Handbook ${uniqueWord()}`;
    const first = await callTool<Uploaded>(client, "service_upload_document", {
      title,
      content: "# Handbook\n\nVersion one of the handbook.",
      source: "https://example.test/handbook",
    });
    t.deepEqual(first.replaced_document_ids, []);
    t.is(first.status, "indexed");
    const second = await callTool<Uploaded>(client, "service_upload_document", {
      title,
      content: "# Handbook\n\nVersion two of the handbook.",
    });
    t.not(second.memory_id, first.memory_id);
    t.deepEqual(second.replaced_document_ids, [first.memory_id]);
  });

  test(`${mode}: service_link relates two memories both ways; service_unlink removes both`, async (t) => {
    const client = clientFor(mode);
    const project = await callTool<Stored>(client, "service_store_memory", {
      content: `Project ${uniqueWord()}`,
    });
    const document = await callTool<Stored>(client, "service_store_memory", {
      content: `Spec ${uniqueWord()}`,
    });
    const relation = { from_id: project.memory_id, to_id: document.memory_id, rel_type: "REFERENCES" };
    const link = await callTool<z.output<typeof linkOutput>>(client, "service_link", relation);
    t.truthy(link.edge_id);
    t.truthy(link.inverse_edge_id);
    t.not(link.edge_id, link.inverse_edge_id);

    type Relations = z.output<typeof listRelationsOutput>;
    const fromProject = await callTool<Relations>(client, "service_list_relations", {
      memory_id: project.memory_id,
    });
    t.true(fromProject.outgoing.some((r) => r.rel_type === "REFERENCES" && r.to === document.memory_id));
    const fromDocument = await callTool<Relations>(client, "service_list_relations", {
      memory_id: document.memory_id,
    });
    t.true(fromDocument.incoming.some((r) => r.rel_type === "REFERENCES" && r.from === project.memory_id));

    const unlinked = await callTool<z.output<typeof unlinkOutput>>(client, "service_unlink", relation);
    t.true(unlinked.deleted);
    const after = await callTool<Relations>(client, "service_list_relations", {
      memory_id: project.memory_id,
    });
    t.false(after.outgoing.some((r) => r.to === document.memory_id));
    t.false(
      after.incoming.some((r) => r.from === document.memory_id),
      "the inverse is gone too",
    );
    const again = await callTool<z.output<typeof unlinkOutput>>(client, "service_unlink", relation);
    t.false(again.deleted);
  });

  test(`${mode}: service_update_fact supersedes a fact; recall_at_time still sees the old version`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    const old = await callTool<Stored>(client, "service_store_memory", {
      title: `Price ${word}`,
      content: `The ${word} plan costs 10 euros per month.`,
    });
    const beforeUpdate = new Date().toISOString();
    const updated = await callTool<z.output<typeof updateFactOutput>>(client, "service_update_fact", {
      target_id: old.memory_id,
      new_title: `Price ${word}`,
      new_content: `The ${word} plan costs 12 euros per month.`,
      update_reason: "price increase",
    });
    t.is(updated.old_memory_id, old.memory_id);
    t.regex(updated.new_memory_id, UUID);
    t.truthy(updated.supersedes_edge);

    const now = await callTool<Recall>(client, "service_recall", { query: `${word} plan costs` });
    t.true(now.hits.some((h) => h.memory_id === updated.new_memory_id));
    t.false(
      now.hits.some((h) => h.memory_id === old.memory_id),
      "the superseded version is not current",
    );

    const then = await callTool<RecallAtTime>(client, "service_recall_at_time", {
      query: `${word} plan costs`,
      as_of: beforeUpdate,
    });
    const oldHit = then.hits.find((h) => h.memory_id === old.memory_id);
    t.truthy(oldHit, "the old version was valid then");
    t.false(
      then.hits.some((h) => h.memory_id === updated.new_memory_id),
      "the new one was not valid yet",
    );
    t.true(Date.parse(oldHit?.valid_from ?? "") <= Date.parse(beforeUpdate));
    t.true(oldHit?.valid_to !== null && Date.parse(oldHit?.valid_to ?? "") > Date.parse(beforeUpdate));

    const current = await callTool<RecallAtTime>(client, "service_recall_at_time", {
      query: `${word} plan costs`,
    });
    const newHit = current.hits.find((h) => h.memory_id === updated.new_memory_id);
    t.is(newHit?.valid_to, null, "the current version has no valid_to");

    const relations = await callTool<z.output<typeof listRelationsOutput>>(client, "service_list_relations", {
      memory_id: updated.new_memory_id,
    });
    t.true(relations.outgoing.some((r) => r.rel_type === "SUPERSEDES" && r.to === old.memory_id));
  });

  test(`${mode}: service_recall_at_time before anything was stored finds nothing`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    await callTool(client, "service_store_memory", { content: `Early fact ${word}` });
    const past = await callTool<RecallAtTime>(client, "service_recall_at_time", {
      query: word,
      as_of: "2001-01-01",
      k: 3,
    });
    t.deepEqual(past.hits, []);
  });

  test(`${mode}: service_health answers status, service and version only`, async (t) => {
    for (const connected of [clients.get(mode), readOnlyClients.get(mode)]) {
      const health = await callTool(connected?.client ?? clientFor(mode), "service_health");
      t.deepEqual(Object.keys(health).sort(), ["service", "status", "version"]);
      t.like(health, { status: "ok", service: "memory-service", version: "0.0.0-test" });
    }
  });

  test(`${mode}: prompts list at least three with arguments, and render with the arguments given`, async (t) => {
    const client = clientFor(mode);
    const { prompts } = await client.listPrompts();
    t.true(prompts.length >= 3);
    t.deepEqual(prompts.map((p) => p.name).sort(), [
      "correct_outdated_fact",
      "recall_before_answering",
      "save_conversation_facts",
    ]);
    for (const prompt of prompts) t.true((prompt.arguments ?? []).length > 0, prompt.name);

    const recall = await client.getPrompt({
      name: "recall_before_answering",
      arguments: { question: "Who owns the billing migration?" },
    });
    const [message] = recall.messages;
    t.is(message?.role, "user");
    t.regex(
      message?.content.type === "text" ? message.content.text : "",
      /service_recall.*Who owns the billing migration\?/s,
    );

    const correct = await client.getPrompt({
      name: "correct_outdated_fact",
      arguments: { outdated: "standup at 9:00", correction: "standup is at 9:30", reason: "new team" },
    });
    const text = correct.messages[0]?.content.type === "text" ? correct.messages[0].content.text : "";
    t.regex(text, /service_update_fact/);
    t.regex(text, /standup is at 9:30/);

    const save = await client.getPrompt({
      name: "save_conversation_facts",
      arguments: { conversation: "Anna: we ship on Friday." },
    });
    t.regex(
      save.messages[0]?.content.type === "text" ? save.messages[0].content.text : "",
      /service_store_memory[\s\S]*Anna: we ship on Friday\./,
    );
  });

  test(`${mode}: prompts/get with a missing argument or an unknown name is -32602`, async (t) => {
    const client = clientFor(mode);
    await rejectsWith(
      t,
      client.getPrompt({ name: "recall_before_answering", arguments: {} }),
      -32602,
      "missing question",
    );
    await rejectsWith(t, client.getPrompt({ name: "no_such_prompt" }), -32602, "unknown prompt");
  });

  test(`${mode}: invalid arguments are -32602 naming the field`, async (t) => {
    const client = clientFor(mode);
    const cases: [string, Record<string, unknown>, string][] = [
      ["service_recall", {}, "query"],
      ["service_recall", { query: "" }, "query"],
      ["service_recall", { query: "   " }, "query"],
      ["service_recall", { query: "x", k: 0 }, "k"],
      ["service_recall", { query: "x", k: 26 }, "k"],
      ["service_recall", { query: "x", k: 2.5 }, "k"],
      ["service_recall", { query: "x", hops: 4 }, "hops"],
      ["service_recall", { query: "x", hops: -1 }, "hops"],
      ["service_recall", { query: "x", limit: 3 }, "limit"],
      ["service_recall_at_time", { query: "x", as_of: "last tuesday" }, "as_of"],
      ["service_recall_at_time", { query: "x", as_of: "2025-02-30T00:00:00Z" }, "as_of"],
      ["service_recall_at_time", { query: "x", k: 30 }, "k"],
      ["service_list_recent", { k: 51 }, "k"],
      ["service_list_relations", {}, "memory_id"],
      ["service_store_memory", { content: "x", memory_type: "working" }, "memory_type"],
      ["service_update_fact", { new_title: "t", new_content: "c" }, "target_id"],
      ["service_link", { from_id: "a", to_id: "b" }, "rel_type"],
      ["service_link", { from_id: "a", to_id: "b", rel_type: "references" }, "rel_type"],
      ["service_unlink", { to_id: "b", rel_type: "REFERENCES" }, "from_id"],
    ];
    for (const [name, args, field] of cases) {
      const error = await rejectsWith(
        t,
        client.callTool({ name, arguments: args }),
        -32602,
        `${name} ${JSON.stringify(args)}`,
      );
      t.is((error.data as { field?: string } | undefined)?.field, field, `${name} ${JSON.stringify(args)}`);
    }
  });

  test(`${mode}: ids core refuses as malformed are -32602, unknown ids -32004`, async (t) => {
    const client = clientFor(mode);
    await rejectsWith(
      t,
      client.callTool({ name: "service_list_relations", arguments: { memory_id: "not-a-uuid" } }),
      -32602,
      "malformed id",
    );
    const unknown = "00000000-0000-4000-8000-000000000000";
    const cases: [string, Record<string, unknown>][] = [
      ["service_list_relations", { memory_id: unknown }],
      ["service_update_fact", { target_id: unknown, new_title: "t", new_content: "c" }],
      ["service_link", { from_id: unknown, to_id: unknown, rel_type: "REFERENCES" }],
    ];
    for (const [name, args] of cases) {
      const error = await rejectsWith(t, client.callTool({ name, arguments: args }), -32004, name);
      t.is((error.data as { reason?: string } | undefined)?.reason, "not_found");
    }
  });

  test(`${mode}: an unknown tool is -32602`, async (t) => {
    await rejectsWith(
      t,
      clientFor(mode).callTool({ name: "service_forget_everything", arguments: {} }),
      -32602,
      "unknown tool",
    );
  });

  test(`${mode}: missing or empty content is -32603 content_required`, async (t) => {
    const client = clientFor(mode);
    for (const [name, args] of [
      ["service_store_memory", { title: "empty" }],
      ["service_store_memory", { content: "" }],
      ["service_upload_document", { title: "empty", content: "" }],
    ] as const) {
      const error = await rejectsWith(
        t,
        client.callTool({ name, arguments: args }),
        -32603,
        `${name} ${JSON.stringify(args)}`,
      );
      t.is((error.data as { reason?: string } | undefined)?.reason, "content_required");
    }
  });

  test(`${mode}: service_store_conversation stores a session, skips re-sent messages, and recall finds the turn`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    const messages = [
      {
        speaker: "Anna",
        content: `Shall we move the ${word} review to Thursday?`,
        at: "2026-03-02T09:00:00Z",
      },
      {
        speaker: "Ben",
        content: `Yes, Thursday at ten works for the ${word} review.`,
        at: "2026-03-02T09:01:00Z",
      },
    ];
    const first = await callTool<z.output<typeof storedConversationSchema>>(
      client,
      "service_store_conversation",
      {
        title: `Sync ${word}`,
        messages,
      },
    );
    t.truthy(first.session_id);
    t.is(first.turns_added, 2);
    t.is(first.turns_total, 2);
    t.regex(first.memory.memory_id, UUID);
    const again = await callTool<z.output<typeof storedConversationSchema>>(
      client,
      "service_store_conversation",
      {
        title: `Sync ${word}`,
        session_id: first.session_id,
        messages: [...messages, { speaker: "Anna", content: `Great, ${word} review on Thursday then.` }],
      },
    );
    t.is(again.session_id, first.session_id);
    t.is(again.turns_skipped, 2);
    t.is(again.turns_added, 1);
    t.is(again.turns_total, 3);
    const recalled = await callTool<Recall>(client, "service_recall", {
      query: `Thursday ten ${word} review`,
    });
    t.true(
      recalled.hits.some((hit) => hit.content.includes(`Thursday at ten works for the ${word}`)),
      JSON.stringify(recalled.hits.map((hit) => hit.content)),
    );
  });

  test(`${mode}: service_fetch_web_page stores a page's main text, a refetch replaces it, and recall finds it`, async (t) => {
    const client = clientFor(mode);
    const word = uniqueWord();
    const furniture = uniqueWord();
    const page = (w: string) =>
      articlePage({
        title: `Ferry timetable ${word}`,
        heading: "Ferry timetable",
        paragraphs: [
          `The ${w} ferry leaves the harbour every hour from six in the morning until ten at night.`,
          "Bicycles travel free of charge; cars need a ticket bought before boarding at the kiosk.",
        ],
        furnitureWord: furniture,
      });
    pages.route(`/ferry-${word}`, { body: page(word) });
    type Fetched = z.output<typeof fetchedWebPageSchema>;
    const first = await callTool<Fetched>(client, "service_fetch_web_page", {
      url: `${pages.url}/ferry-${word}`,
    });
    t.like(first, {
      title: `Ferry timetable ${word}`,
      status: "indexed",
      page_type: "html",
      url: `${pages.url}/ferry-${word}`,
    });
    const later = uniqueWord();
    pages.route(`/ferry-${word}`, { body: page(later) });
    const second = await callTool<Fetched>(client, "service_fetch_web_page", {
      url: `${pages.url}/ferry-${word}`,
    });
    t.deepEqual(second.replaced_document_ids, [first.memory_id]);
    const recalled = await callTool<Recall>(client, "service_recall", { query: `${later} ferry harbour` });
    const hit = recalled.hits.find((h) => h.memory_id === second.memory_id);
    t.truthy(hit, JSON.stringify(recalled.hits));
    t.false(
      recalled.hits.some((h) => h.content.includes(furniture)),
      "no navigation or footer text",
    );
    t.false(
      recalled.hits.some((h) => h.memory_id === first.memory_id),
      "the replaced version is gone",
    );
    const refused = await rejectsWith(
      t,
      client.callTool({ name: "service_fetch_web_page", arguments: { url: "http://0.0.0.0/" } }),
      -32602,
      "refused URL",
    );
    t.is((refused.data as { reason?: string } | undefined)?.reason, "validation");
  });

  test(`${mode}: service_erase_memory without confirm names what would go; with confirm: true the memory is gone`, async (t) => {
    // These clients declared no elicitation: the confirm argument decides (erase-confirmation.test.ts
    // has the user asked through elicitation and the 2026-07-28 input request).
    const client = clientFor(mode);
    const word = uniqueWord();
    const stored = await callTool<Stored>(client, "service_store_memory", {
      title: `Door code ${word}`,
      content: `The door code for the ${word} office is 2468.`,
    });
    const asked = await client.callTool({
      name: "service_erase_memory",
      arguments: { memory_id: stored.memory_id },
    });
    t.true(asked.isError);
    t.like(asked.structuredContent as z.output<typeof eraseMemoryOutput>, {
      erased: false,
      memory_id: stored.memory_id,
      title: `Door code ${word}`,
      versions: 1,
    });
    const erased = await callTool<z.output<typeof eraseMemoryOutput>>(client, "service_erase_memory", {
      memory_id: stored.memory_id,
      confirm: true,
    });
    t.like(erased, { erased: true, memory_id: stored.memory_id, versions: 1 });
    const recalled = await callTool<Recall>(client, "service_recall", { query: `door code ${word}` });
    t.false(recalled.hits.some((hit) => hit.memory_id === stored.memory_id));
  });

  // 2026-07-28 forbids emitting -32002; the same refusal is -31002 there (docs/mcp.md "Errors").
  const scopeMissing = mode === "2026-07-28" ? -31002 : -32002;
  test(`${mode}: a read-only token may recall but writing is ${scopeMissing}`, async (t) => {
    const client = readOnlyClients.get(mode)?.client;
    if (!client) throw new Error("not connected");
    await callTool(client, "service_recall", { query: "anything" });
    for (const [name, args] of [
      ["service_store_memory", { content: "not allowed" }],
      ["service_upload_document", { content: "not allowed" }],
      [
        "service_update_fact",
        { target_id: "00000000-0000-4000-8000-000000000000", new_title: "t", new_content: "c" },
      ],
      [
        "service_link",
        {
          from_id: "00000000-0000-4000-8000-000000000000",
          to_id: "00000000-0000-4000-8000-000000000001",
          rel_type: "REFERENCES",
        },
      ],
      [
        "service_unlink",
        {
          from_id: "00000000-0000-4000-8000-000000000000",
          to_id: "00000000-0000-4000-8000-000000000001",
          rel_type: "REFERENCES",
        },
      ],
    ] as const) {
      const error = await rejectsWith(t, client.callTool({ name, arguments: args }), scopeMissing, name);
      t.regex(error.message, /write/);
    }
  });
}
