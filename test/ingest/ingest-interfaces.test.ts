import test from "ava";
import { type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc, UNTHROTTLED } from "../mcp/post-mcp.js";
import { longGermanText, memoriesTitled, readMemory, startIngestService } from "./ingest-test-kit.js";

// Ingest through the two public interfaces (spec "Endpoints"): REST POST /api/documents and
// POST /api/v1/memory/entries, MCP service_store_memory and service_upload_document — same core,
// same rules, answered in each interface's own shape and error codes.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
});

test.after.always(async () => {
  await service?.stop();
});

async function rest(path: string, body: unknown, token = tenant.token) {
  const response = await fetch(`${service.httpUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function callTool(name: string, args: Record<string, unknown>, token = tenant.token) {
  const answer = parseJsonAnswer(
    await postMcp(service.httpUrl, rpc("tools/call", { name, arguments: args }), { token }),
  );
  return answer;
}

test("REST POST /api/documents answers 202 queued at once; the worker indexes the document", async (t) => {
  const { status, body } = await rest("/api/documents", {
    title: "Reisekosten",
    content: "Reisekosten werden innerhalb von 30 Tagen erstattet.",
    source: "https://intranet.example/reise",
    metadata: { abteilung: "Finanzen" },
  });
  t.is(status, 202);
  t.deepEqual(Object.keys(body).sort(), ["documentId", "status"]);
  t.is(body.status, "queued");
  const id = String(body.documentId);
  const row = await waitFor(
    async () => {
      const r = await readMemory(service, id);
      return r?.status === "indexed" ? r : undefined;
    },
    { what: "the worker to index the REST document" },
  );
  t.is(row.kind, "document");
  t.is(row.source, "https://intranet.example/reise");
  t.deepEqual(row.metadata, { abteilung: "Finanzen" });
});

test("REST documents over 10 MB answer 413 with a hint to split; empty content 400", async (t) => {
  const big = await rest("/api/documents", { title: "Groß", content: "a".repeat(10 * 1024 * 1024 + 1) });
  t.is(big.status, 413);
  t.regex(String(big.body.error), /split/);
  const empty = await rest("/api/documents", { title: "Leer", content: "" });
  t.is(empty.status, 400);
  t.regex(String(empty.body.error), /content/);
});

test("REST memory entries: 201 created, 200 unchanged for identical content, 413 over 100 KB", async (t) => {
  const entry = {
    memory_type: "episodic",
    title: "Standup",
    content: "Heute: Release 2.3 vorbereitet.",
    tags: ["team"],
  };
  const created = await rest("/api/v1/memory/entries", entry);
  t.is(created.status, 201);
  t.is(created.body.status, "indexed");
  t.is(created.body.chunksWritten, 1);
  const again = await rest("/api/v1/memory/entries", entry);
  t.is(again.status, 200);
  t.is(again.body.memoryId, created.body.memoryId);
  t.is(again.body.unchanged, true);
  const row = await readMemory(service, String(created.body.memoryId));
  t.is(row?.memory_type, "episodic");
  t.deepEqual(row?.tags, ["team"]);
  const big = await rest("/api/v1/memory/entries", {
    memory_type: "semantic",
    title: "Zu groß",
    content: "b".repeat(100 * 1024 + 1),
  });
  t.is(big.status, 413);
});

test("REST writes at the memory limit answer 402 with the plan-gate body", async (t) => {
  const limited = await service.createTenant({
    plan: "free",
    limitsOverride: { ...UNTHROTTLED, memoryLimit: 1 },
  });
  const first = await rest(
    "/api/documents",
    { title: "Eins", content: "Das erste Dokument." },
    limited.token,
  );
  t.is(first.status, 202);
  const second = await rest(
    "/api/documents",
    { title: "Zwei", content: "Das zweite Dokument." },
    limited.token,
  );
  t.is(second.status, 402);
  t.is(second.body.error, "plan_upgrade_required");
  t.is(second.body.limit, 1);
  t.is(second.body.used, 1);
  t.is(typeof second.body.message, "string");
  t.regex(String(second.body.upgradeUrl), /^https?:\/\//);
});

test("MCP service_store_memory returns the stored-memory result with quota fields", async (t) => {
  const answer = await callTool("service_store_memory", {
    title: "Geburtstag",
    content: "Annas Geburtstag ist am 12. März.",
    memory_type: "semantic",
    tags: ["privat"],
    source: "Gespräch mit Anna",
  });
  t.is(answer.error, undefined);
  const result = answer.result?.structuredContent as Record<string, unknown>;
  t.is(result.memory_id, result.id);
  t.is(result.status, "indexed");
  t.is(result.chunks_written, 1);
  t.is(result.embedding_provider, service.models.embedder.id);
  t.is(typeof result.memoriesUsed, "number");
  t.is(typeof result.warnAt80, "boolean");
  const again = await callTool("service_store_memory", {
    title: "Geburtstag",
    content: "Annas Geburtstag ist am 12. März.",
  });
  const unchanged = again.result?.structuredContent as Record<string, unknown>;
  t.is(unchanged.memory_id, result.memory_id);
  t.is(unchanged.unchanged, true);
});

test("MCP service_upload_document replaces by title and lists replaced_document_ids", async (t) => {
  const first = await callTool("service_upload_document", { title: "Satzung", content: "Fassung von 2023." });
  const oldId = (first.result?.structuredContent as Record<string, unknown>).memory_id;
  const second = await callTool("service_upload_document", {
    title: "Satzung",
    content: "Fassung von 2024.",
  });
  const result = second.result?.structuredContent as Record<string, unknown>;
  t.deepEqual(result.replaced_document_ids, [oldId]);
  const rows = await memoriesTitled(service, tenant.tenantId, "Satzung");
  t.deepEqual(
    rows.map((r) => r.valid_to === null),
    [false, true],
  );
});

test("MCP large uploads are queued; over 1,000,000 characters too_large; empty content content_required", async (t) => {
  const queued = await callTool("service_upload_document", { title: "Lang", content: longGermanText(60) });
  t.is((queued.result?.structuredContent as Record<string, unknown>).status, "queued");
  const big = await callTool("service_upload_document", { title: "Riesig", content: "x".repeat(1_000_001) });
  t.is(big.error?.code, -32603);
  t.is(big.error?.data?.reason, "too_large");
  const empty = await callTool("service_store_memory", { title: "Leer", content: "" });
  t.is(empty.error?.code, -32603);
  t.is(empty.error?.data?.reason, "content_required");
});

test("a queued document appears in service_list_recent once the worker has indexed it", async (t) => {
  const own = await service.createTenant({ limitsOverride: UNTHROTTLED });
  const listed = async () => {
    const answer = await callTool("service_list_recent", { k: 10 }, own.token);
    return (answer.result?.structuredContent as { items: Record<string, unknown>[] }).items;
  };
  const upload = await callTool(
    "service_upload_document",
    { title: "Jahresbericht", content: longGermanText(60) },
    own.token,
  );
  const result = upload.result?.structuredContent as Record<string, unknown>;
  t.is(result.status, "queued");
  t.deepEqual(await listed(), []);
  const items = await waitFor(
    async () => {
      const found = await listed();
      return found.length > 0 ? found : undefined;
    },
    { what: "the document to appear in list_recent", timeoutMs: 60_000 },
  );
  t.is(items[0]?.id, result.memory_id);
  t.is(items[0]?.status, "indexed");
  t.is(items[0]?.kind, "document");
  t.true(Number(items[0]?.indexed_chunks) > 1);
});
