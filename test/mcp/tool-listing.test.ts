import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { getOption } from "@bufbuild/protobuf";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import test from "ava";
import { TOOLS, TOOLS_BY_NAME } from "../../gateway-mcp/tools/tool-list.js";
import { LinkRequestSchema, UpdateFactRequestSchema } from "../../gen/memory/v1/graph_service_pb.js";
import {
  StoreMemoryRequestSchema,
  UploadDocumentRequestSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import { ListRecentRequestSchema, RecallRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";

interface PropertySchema {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  enum?: unknown[];
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  description?: string;
  items?: PropertySchema;
  maxItems?: number;
}

function inputProperty(tool: string, name: string): PropertySchema {
  const listing = TOOLS_BY_NAME.get(tool)?.listing;
  const property = listing?.inputSchema.properties?.[name];
  if (!property) throw new Error(`${tool} has no argument ${name}`);
  return property as PropertySchema;
}

// Issue 22 (ADR 0220): the recall tools' filter arguments, beyond the spec's.
const RECALL_FILTERS = [
  "memory_types",
  "tags",
  "tags_match",
  "origin",
  "created_after",
  "created_before",
  "kinds",
];

// Spec "MCP tools (11)": name → [scope, required arguments, optional arguments].
const SPEC_TOOLS: Record<string, [string, string[], string[]]> = {
  service_recall: ["read", ["query"], ["k", "hops", "explain", ...RECALL_FILTERS]],
  service_recall_at_time: ["read", ["query"], ["as_of", "k", "explain", ...RECALL_FILTERS]],
  service_list_relations: ["read", ["memory_id"], []],
  service_health: ["any", [], []],
  service_stats: ["read", [], []],
  service_list_recent: ["read", [], ["k"]],
  // idempotency_key: this service's optional retry key on non-idempotent writes (issue 15).
  service_store_memory: ["write", ["content"], ["title", "memory_type", "tags", "source", "idempotency_key"]],
  service_upload_document: ["write", ["content"], ["title", "source", "idempotency_key"]],
  service_update_fact: [
    "write",
    ["target_id", "new_title", "new_content"],
    ["update_reason", "idempotency_key"],
  ],
  service_link: ["write", ["from_id", "to_id", "rel_type"], []],
  service_unlink: ["write", ["from_id", "to_id", "rel_type"], []],
};

// This service's tools beyond the spec's table, appended in the order they were added (docs/mcp.md "Tools").
const ADDED_TOOLS: Record<string, [string, string[], string[]]> = {
  // Issue 47, item 5: erasure over MCP, confirmed by argument on revision 2025-06-18.
  service_erase_memory: ["admin", ["memory_id"], ["confirm"]],
  // Issue 48, item 3: a conversation session's messages (idempotent by design: no retry key).
  service_store_conversation: ["write", ["messages"], ["title", "session_id"]],
  // Issue 48, item 2: a web page by URL (a refetch replaces: no retry key needed).
  service_fetch_web_page: ["write", ["url"], ["title"]],
};

const ALL_TOOLS = { ...SPEC_TOOLS, ...ADDED_TOOLS };

test("the tool list is the spec's 11 tools in its order, then the added ones, with their argument names", (t) => {
  t.deepEqual(
    TOOLS.map((tool) => tool.name),
    [...Object.keys(SPEC_TOOLS), ...Object.keys(ADDED_TOOLS)],
  );
  t.deepEqual(
    TOOLS.slice(0, 11).map((tool) => tool.name),
    Object.keys(SPEC_TOOLS),
    "the spec's tools keep their places",
  );
  for (const [name, [, required, optional]] of Object.entries(ALL_TOOLS)) {
    const { inputSchema } = TOOLS_BY_NAME.get(name)?.listing ?? { inputSchema: undefined };
    t.deepEqual([...(inputSchema?.required ?? [])].sort(), [...required].sort(), `${name} required`);
    t.deepEqual(Object.keys(inputSchema?.properties ?? {}).sort(), [...required, ...optional].sort(), name);
    t.is(inputSchema?.additionalProperties, false, `${name} refuses unknown arguments`);
  }
});

test("every tool has a title, an assistant-facing description, an output schema and annotations", (t) => {
  for (const { listing } of TOOLS) {
    t.truthy(listing.title, listing.name);
    t.true((listing.description ?? "").length > 120, `${listing.name} description says when to call it`);
    t.is(listing.outputSchema?.type, "object", listing.name);
    t.true(Object.keys(listing.outputSchema?.properties ?? {}).length > 0, listing.name);
    // MCP 2025-06-18 "Tool annotations": every hint stated, none left to its default.
    t.is(listing.annotations?.title, listing.title, listing.name);
    t.is(typeof listing.annotations?.readOnlyHint, "boolean", listing.name);
    t.is(typeof listing.annotations?.destructiveHint, "boolean", listing.name);
    t.is(typeof listing.annotations?.idempotentHint, "boolean", listing.name);
    // Only the web page fetcher reaches outside the caller's workspace.
    t.is(listing.annotations?.openWorldHint, listing.name === "service_fetch_web_page", listing.name);
    t.is(
      (listing.inputSchema as { $schema?: string }).$schema,
      undefined,
      "no dialect URI that validators trip over",
    );
  }
});

test("read tools are marked read-only, write tools not, and only replacing or removing tools destructive", (t) => {
  for (const [name, [scope]] of Object.entries(ALL_TOOLS)) {
    const annotations = TOOLS_BY_NAME.get(name)?.listing.annotations;
    t.is(annotations?.readOnlyHint, scope === "read" || scope === "any", name);
    if (annotations?.readOnlyHint) {
      t.is(annotations.destructiveHint, false, `${name}: a read removes nothing`);
      t.is(annotations.idempotentHint, true, `${name}: a repeated read changes nothing`);
    }
  }
  const destructive = TOOLS.filter((tool) => tool.listing.annotations?.destructiveHint).map(
    (tool) => tool.name,
  );
  t.deepEqual(destructive, [
    "service_upload_document",
    "service_unlink",
    "service_erase_memory",
    "service_fetch_web_page",
  ]);
  t.like(TOOLS_BY_NAME.get("service_erase_memory")?.listing.inputSchema.properties?.confirm, {
    type: "boolean",
    default: false,
  });
});

test("bounds and defaults are published as the spec states them", (t) => {
  t.like(inputProperty("service_recall", "k"), { type: "integer", minimum: 1, maximum: 25, default: 5 });
  t.like(inputProperty("service_recall", "hops"), { type: "integer", minimum: 0, maximum: 3, default: 2 });
  t.like(inputProperty("service_recall", "query"), { type: "string", minLength: 1 });
  t.like(inputProperty("service_recall_at_time", "k"), {
    type: "integer",
    minimum: 1,
    maximum: 25,
    default: 5,
  });
  t.like(inputProperty("service_recall_at_time", "as_of"), { type: "string" });
  t.like(inputProperty("service_list_recent", "k"), {
    type: "integer",
    minimum: 1,
    maximum: 50,
    default: 10,
  });
  t.deepEqual(inputProperty("service_store_memory", "memory_type").enum, [
    "semantic",
    "episodic",
    "procedural",
    "reference",
  ]);
  t.is(inputProperty("service_store_memory", "memory_type").default, "semantic");
  t.like(inputProperty("service_store_memory", "tags"), { type: "array", items: { type: "string" } });
  t.regex("FOR_CLIENT", new RegExp(inputProperty("service_link", "rel_type").pattern ?? "^$"));
  t.notRegex("for_client", new RegExp(inputProperty("service_link", "rel_type").pattern ?? "^$"));
});

function rulesOf(message: DescMessage, name: string) {
  const field: DescField | undefined = message.fields.find((f) => f.name === name);
  if (!field) throw new Error(`${message.typeName} has no field ${name}`);
  return getOption(field, fieldRules);
}

test("the published bounds are the ones core's protovalidate rules enforce", (t) => {
  const integerPairs: [string, string, DescMessage, string][] = [
    ["service_recall", "k", RecallRequestSchema, "k"],
    ["service_recall", "hops", RecallRequestSchema, "hops"],
    ["service_recall_at_time", "k", RecallRequestSchema, "k"],
    ["service_list_recent", "k", ListRecentRequestSchema, "k"],
  ];
  for (const [tool, argument, message, field] of integerPairs) {
    const rules = rulesOf(message, field);
    if (rules.type.case !== "int32") throw new Error(`${field} is not int32`);
    const published = inputProperty(tool, argument);
    t.is(published.minimum, rules.type.value.greaterThan.value, `${tool}.${argument} minimum`);
    t.is(published.maximum, rules.type.value.lessThan.value, `${tool}.${argument} maximum`);
  }
  const stringPairs: [string, string, DescMessage, string][] = [
    ["service_store_memory", "title", StoreMemoryRequestSchema, "title"],
    ["service_store_memory", "source", StoreMemoryRequestSchema, "source"],
    ["service_upload_document", "title", UploadDocumentRequestSchema, "title"],
    ["service_upload_document", "source", UploadDocumentRequestSchema, "source"],
    ["service_update_fact", "new_title", UpdateFactRequestSchema, "new_title"],
    ["service_update_fact", "update_reason", UpdateFactRequestSchema, "update_reason"],
    ["service_link", "rel_type", LinkRequestSchema, "rel_type"],
  ];
  for (const [tool, argument, message, field] of stringPairs) {
    const rules = rulesOf(message, field);
    if (rules.type.case !== "string") throw new Error(`${field} is not a string rule`);
    const published = inputProperty(tool, argument);
    t.is(
      published.maxLength,
      rules.type.value.maxLen === undefined ? undefined : Number(rules.type.value.maxLen),
      `${tool}.${argument} maxLength`,
    );
    if (rules.type.value.pattern)
      t.is(published.pattern, rules.type.value.pattern, `${tool}.${argument} pattern`);
  }
  const tags = rulesOf(StoreMemoryRequestSchema, "tags");
  if (tags.type.case !== "repeated") throw new Error("tags is not a repeated rule");
  t.is(inputProperty("service_store_memory", "tags").maxItems, Number(tags.type.value.maxItems));
});
