import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import test, { type ExecutionContext } from "ava";
import type { z } from "zod";
import type { eraseMemoryOutput } from "../../gateway-mcp/tools/erase-memory.js";
import type { listRecentOutput } from "../../gateway-mcp/tools/list-recent.js";
import type { listRelationsOutput } from "../../gateway-mcp/tools/list-relations.js";
import type { recallOutput } from "../../gateway-mcp/tools/recall.js";
import type { updateFactOutput } from "../../gateway-mcp/tools/update-fact.js";
import type { storedMemorySchema } from "../../gateway-mcp/translate/stored-memory-result.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { UNTHROTTLED } from "./post-mcp.js";
import { type ConnectedClient, callTool, connectSdkClient } from "./sdk-client.js";
import { switchableModels } from "./switchable-embedder.js";

// service_erase_memory (issue 47, item 5) through the official SDK client: the confirm argument of
// revision 2025-06-18, the admin scope, the erasure REST's DELETE /api/v1/memories/{id} runs, and
// not-found for unknown and other workspaces' ids.

type Erased = z.output<typeof eraseMemoryOutput>;
type Stored = z.output<typeof storedMemorySchema>;

let service: TestService;
let tenant: TestTenant;
let admin: ConnectedClient;
let writer: ConnectedClient;
let bystander: ConnectedClient;
const NOT_FOUND = -32004;

test.before(async () => {
  service = await startTestService({ models: switchableModels() });
  tenant = await service.createTenant({ scopes: ["read", "write", "admin"], limitsOverride: UNTHROTTLED });
  const other = await service.createTenant({
    scopes: ["read", "write", "admin"],
    limitsOverride: UNTHROTTLED,
  });
  admin = await connectSdkClient(service.httpUrl, tenant.token, "json");
  writer = await connectSdkClient(
    service.httpUrl,
    (await tenant.issueToken(["read", "write"], "no admin")).token,
    "json",
  );
  bystander = await connectSdkClient(service.httpUrl, other.token, "json");
});

test.after.always(async () => {
  for (const connected of [admin, writer, bystander]) await connected?.close();
  await service?.stop();
});

const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10)}`;

async function store(client: ConnectedClient, word: string): Promise<Stored> {
  return callTool<Stored>(client.client, "service_store_memory", {
    title: `Locker code ${word}`,
    content: `The locker code for ${word} is 4711.`,
  });
}

async function recalls(client: ConnectedClient, word: string, ids: readonly string[]): Promise<boolean> {
  const { hits } = await callTool<z.output<typeof recallOutput>>(client.client, "service_recall", {
    query: `locker ${word}`,
  });
  return hits.some((hit) => ids.includes(hit.memory_id));
}

function erase(client: ConnectedClient, args: Record<string, unknown>): Promise<CallToolResult> {
  return client.client.callTool({ name: "service_erase_memory", arguments: args }) as Promise<CallToolResult>;
}

async function rejectsWith(t: ExecutionContext, promise: Promise<unknown>, code: number, what: string) {
  const error = await t.throwsAsync(promise, { instanceOf: McpError }, what);
  t.is(error?.code, code, `${what}: ${error?.message}`);
  return error;
}

test("without confirm nothing is erased: an isError result names the memory and asks to call again with confirm", async (t) => {
  const word = uniqueWord();
  const stored = await store(admin, word);
  for (const args of [{ memory_id: stored.memory_id }, { memory_id: stored.memory_id, confirm: false }]) {
    const result = await erase(admin, args);
    t.true(result.isError, "a refused precondition the model reads (MCP tool execution error)");
    t.like(result.structuredContent, {
      erased: false,
      memory_id: stored.memory_id,
      title: `Locker code ${word}`,
      versions: 1,
      edges: 0,
    });
    t.true(((result.structuredContent as Erased | undefined)?.chunks ?? 0) >= 1);
    const [json, note] = result.content;
    t.is(json?.type === "text" ? json.text : "", JSON.stringify(result.structuredContent));
    t.regex(note?.type === "text" ? note.text : "", /Not erased.*Locker code.*confirm: true/s);
  }
  t.true(await recalls(admin, word, [stored.memory_id]), "the memory is still recalled");
});

test("without the admin scope the erase tool is -32002, with or without confirm, and nothing is erased", async (t) => {
  const word = uniqueWord();
  const stored = await store(admin, word);
  for (const confirm of [undefined, true]) {
    const error = await rejectsWith(
      t,
      erase(writer, { memory_id: stored.memory_id, ...(confirm ? { confirm } : {}) }),
      -32002,
      `confirm ${confirm}`,
    );
    t.like(error?.data, { reason: "permission_denied" });
  }
  t.true(await recalls(admin, word, [stored.memory_id]));
});

test("with confirm the whole lineage is erased: gone from recall, list_recent and relations; a retry is not found", async (t) => {
  const word = uniqueWord();
  const first = await store(admin, word);
  const updated = await callTool<z.output<typeof updateFactOutput>>(admin.client, "service_update_fact", {
    target_id: first.memory_id,
    new_title: `Locker code ${word}`,
    new_content: `The locker code for ${word} is 0815 since May.`,
  });
  const other = await callTool<Stored>(admin.client, "service_store_memory", {
    title: `Locker room ${word}`,
    content: `The locker room of ${word} is on floor 2.`,
  });
  await callTool(admin.client, "service_link", {
    from_id: updated.new_memory_id,
    to_id: other.memory_id,
    rel_type: "RELATED_TO",
  });
  const lineage = [first.memory_id, updated.new_memory_id];
  t.true(await recalls(admin, word, lineage));

  const preview = await erase(admin, { memory_id: first.memory_id });
  t.like(preview.structuredContent, { erased: false, versions: 2 });
  const expected = preview.structuredContent as Erased;

  // Any version's id names the lineage; the answer is what the preview announced, now erased.
  const erased = await callTool<Erased>(admin.client, "service_erase_memory", {
    memory_id: first.memory_id,
    confirm: true,
  });
  t.deepEqual(erased, { ...expected, erased: true });
  t.true(erased.edges >= 4, "SUPERSEDES both ways and the link both ways");

  t.false(await recalls(admin, word, lineage), "recall no longer finds any version");
  const recent = await callTool<z.output<typeof listRecentOutput>>(admin.client, "service_list_recent", {
    k: 50,
  });
  t.false(recent.items.some((item) => lineage.includes(item.id)));
  const relations = await callTool<z.output<typeof listRelationsOutput>>(
    admin.client,
    "service_list_relations",
    { memory_id: other.memory_id },
  );
  t.deepEqual([...relations.outgoing, ...relations.incoming], [], "its links went with it");
  for (const id of lineage) {
    await rejectsWith(t, callTool(admin.client, "service_list_relations", { memory_id: id }), NOT_FOUND, id);
  }
  await rejectsWith(t, erase(admin, { memory_id: first.memory_id, confirm: true }), NOT_FOUND, "retry");
  t.true(await recalls(admin, word, [other.memory_id]), "the linked memory stays");
});

test("an unknown id and another workspace's id are not found (-32004), with and without confirm", async (t) => {
  const word = uniqueWord();
  const theirs = await store(bystander, word);
  for (const id of ["6f1c7a43-0000-4000-8000-000000000000", theirs.memory_id]) {
    for (const confirm of [false, true]) {
      const error = await rejectsWith(
        t,
        erase(admin, { memory_id: id, confirm }),
        NOT_FOUND,
        `${id} ${confirm}`,
      );
      t.like(error?.data, { reason: "not_found" });
    }
  }
  t.true(await recalls(bystander, word, [theirs.memory_id]), "the other workspace keeps its memory");
});

test("a malformed id or an unknown argument is -32602", async (t) => {
  await rejectsWith(t, erase(admin, { memory_id: "not-a-uuid", confirm: true }), -32602, "malformed id");
  await rejectsWith(t, erase(admin, { memory_id: "" }), -32602, "empty id");
  await rejectsWith(
    t,
    erase(admin, { id: "6f1c7a43-0000-4000-8000-000000000000" }),
    -32602,
    "id, not memory_id",
  );
  await rejectsWith(
    t,
    erase(admin, { memory_id: "6f1c7a43-0000-4000-8000-000000000000", confirm: "yes" }),
    -32602,
    "confirm as text",
  );
});
