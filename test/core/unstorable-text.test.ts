import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import fc from "fast-check";
import { findUnstorableText } from "../../core/find-unstorable-text.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc } from "../mcp/post-mcp.js";

// Issue 15, item 4: text PostgreSQL cannot store (NUL, unpaired surrogates) is refused by core's
// validation with the field's name: REST 400, JSON-RPC -32602, gRPC INVALID_ARGUMENT; never 500.
// (An unpaired surrogate sent over a gateway or gRPC is replaced by U+FFFD when the request is
// encoded as protobuf, before core sees it; core still refuses one handed to it directly.)

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService();
  tenant = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
});

test("findUnstorableText names the first field holding NUL or an unpaired surrogate", (t) => {
  t.deepEqual(findUnstorableText({ $typeName: "x.Req", newContent: "a\u0000b" }), {
    field: "new_content",
    problem: "must not contain NUL (\\u0000) characters",
  });
  t.is(findUnstorableText({ $typeName: "x.Req", tags: ["ok", "\uD800x"] })?.field, "tags[1]");
  t.is(findUnstorableText({ $typeName: "x.Req", metadata: { a: { b: "\u0000" } } })?.field, "metadata.a.b");
  t.is(findUnstorableText({ $typeName: "x.Req", metadata: { "k\u0000": 1 } })?.field, "metadata");
  t.is(
    findUnstorableText({ $typeName: "x.Req", target: { case: "memoryId", value: "\uDC00" } })?.field,
    "target.memory_id",
  );
  t.is(findUnstorableText({ $typeName: "x.Req", query: "Grüße 😀 \u00a0 ok" }), undefined);
});

test("findUnstorableText accepts all well-formed text without NUL and finds any inserted NUL", (t) => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), fc.nat(), (text, at) => {
      const clean = text.replaceAll("\u0000", "");
      if (findUnstorableText({ $typeName: "x.Req", content: clean }) !== undefined) return false;
      const i = at % (clean.length + 1);
      const dirty = `${clean.slice(0, i)}\u0000${clean.slice(i)}`;
      return findUnstorableText({ $typeName: "x.Req", content: dirty })?.field === "content";
    }),
  );
  t.pass();
});

async function rest(path: string, body: object): Promise<{ status: number; error: string }> {
  const res = await fetch(`${service.httpUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, error: ((await res.json()) as { error?: string }).error ?? "" };
}

test("REST: NUL in query, title, content or source answers the route's validation status naming the field", async (t) => {
  const recall = await rest("/api/v1/memory/recall", { query: "a\u0000b" });
  t.deepEqual(recall, { status: 400, error: "query: must not contain NUL (\\u0000) characters" });
  // /memory/entries answers every validation error with 422 (spec "REST": missing field → 422).
  const entry = { memoryType: "semantic", title: "t", content: "c" };
  t.regex((await rest("/api/v1/memory/entries", { ...entry, title: "x\u0000" })).error, /^title: /);
  const content = await rest("/api/v1/memory/entries", { ...entry, content: "x\u0000" });
  t.is(content.status, 422);
  t.regex(content.error, /^content: must not contain NUL/);
  const source = await rest("/api/v1/memory/entries", { ...entry, source: "\u0000" });
  t.is(source.status, 422);
  t.regex(source.error, /^source: /);
  const doc = await rest("/api/v1/documents", { title: "d", content: "long text\u0000" });
  t.is(doc.status, 400);
  t.regex(doc.error, /^content: must not contain NUL/);
  const meta = await rest("/api/v1/memory/entries", { ...entry, metadata: { note: "\u0000" } });
  t.is(meta.status, 422);
  t.regex(meta.error, /^metadata\.note: /);
});

test("MCP: NUL in a tool argument is -32602 naming the field, not -32603", async (t) => {
  const recall = parseJsonAnswer(
    await postMcp(
      service.httpUrl,
      rpc("tools/call", { name: "service_recall", arguments: { query: "\u0000" } }),
      {
        token: tenant.token,
      },
    ),
  );
  t.is(recall.error?.code, -32602);
  t.regex(recall.error?.message ?? "", /query/);
  const store = parseJsonAnswer(
    await postMcp(
      service.httpUrl,
      rpc("tools/call", { name: "service_store_memory", arguments: { content: "a\u0000", title: "t" } }),
      { token: tenant.token },
    ),
  );
  t.is(store.error?.code, -32602);
  t.regex(store.error?.message ?? "", /content/);
});

test("gRPC: NUL in a request field is INVALID_ARGUMENT", async (t) => {
  const transport = createGrpcTransport({ baseUrl: service.grpcUrl });
  const headers = { authorization: `Bearer ${tenant.token}` };
  const recall = createClient(RecallService, transport);
  const error = await t.throwsAsync(recall.recall({ query: "x\u0000" }, { headers }));
  t.is(ConnectError.from(error).code, Code.InvalidArgument);
  t.regex(ConnectError.from(error).rawMessage, /^query: must not contain NUL/);
  const ingest = createClient(IngestService, transport);
  const stored = await t.throwsAsync(ingest.storeMemory({ title: "t", content: "\u0000" }, { headers }));
  t.is(ConnectError.from(stored).code, Code.InvalidArgument);
});
