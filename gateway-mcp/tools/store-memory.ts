import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { StoreMemoryRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { MCP_MEMORY_TYPES, memoryTypeValue } from "../translate/enum-names.js";
import { storedMemoryResult, storedMemorySchema } from "../translate/stored-memory-result.js";
import { idempotencyKeyArgument, keyedWrite } from "./idempotency-key.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = StoreMemoryRequestSchema.field;

export const storeMemoryInput = z.strictObject({
  title: protoString(fields.title)
    .optional()
    .meta({ description: "Short, specific title. Default: derived from the content's first line." }),
  content: z.string().optional().meta({
    description:
      "The fact or note to remember, self-contained (Markdown or plain text, at most 100 KB; use service_upload_document for longer texts).",
  }),
  memory_type: z.enum(MCP_MEMORY_TYPES).optional().meta({
    default: "semantic",
    description:
      "semantic: a fact or knowledge; episodic: something that happened (meeting, conversation); procedural: how to do something; reference: a pointer to an external source.",
  }),
  tags: z.array(z.string().min(1).max(100)).max(64).optional().meta({ description: "Free-form labels." }),
  source: protoString(fields.source)
    .optional()
    .meta({ description: "Where the fact comes from, free text (URL, file, 'conversation with Anna')." }),
  idempotency_key: idempotencyKeyArgument,
});

/**
 * Spec "MCP tools": service_store_memory (write) → IngestService.StoreMemory. Append-only (rule 1):
 * an existing title is not replaced; byte-identical content comes back with unchanged: true.
 * memory_type takes the spec's four values although the proto enum has six; unset is left to core
 * (semantic). A missing content is sent as empty so core answers content_required (-32603).
 */
export const storeMemoryTool = defineTool({
  name: "service_store_memory",
  title: "Store a memory",
  description:
    "Save a durable fact, decision, preference or note to long-term memory so it can be recalled in later conversations. " +
    "Store one self-contained fact per call with a specific title. It is append-only: storing again never overwrites; " +
    "if a stored fact has changed, use service_update_fact on the old memory instead. Identical content is detected and reported as unchanged. " +
    "Returns memory_id, status and the workspace quota.",
  input: storeMemoryInput,
  output: storedMemorySchema,
  requiredForCore: ["content"],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.add],
  async call(args, { clients, callOptions }) {
    const response = await keyedWrite(callOptions, args.idempotency_key, (options) =>
      clients.ingest.storeMemory(
        {
          content: args.content ?? "",
          ...(args.title !== undefined ? { title: args.title } : {}),
          ...(args.memory_type !== undefined ? { memoryType: memoryTypeValue(args.memory_type) } : {}),
          ...(args.tags !== undefined ? { tags: args.tags } : {}),
          ...(args.source !== undefined ? { source: args.source } : {}),
        },
        options,
      ),
    );
    const hint = response.memory?.quota?.hint;
    return { structured: storedMemoryResult(response.memory), ...(hint ? { note: hint } : {}) };
  },
});
