import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { UpdateFactRequestSchema } from "../../gen/memory/v1/graph_service_pb.js";
import { idempotencyKeyArgument, keyedWrite } from "./idempotency-key.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = UpdateFactRequestSchema.field;

export const updateFactInput = z.strictObject({
  target_id: z.string().min(1).describe("memory_id of the current version of the fact that changed."),
  new_title: protoString(fields.newTitle).describe("Title of the new version."),
  // Required here (a missing argument is the spec's "required field missing", -32602, as REST's
  // 400); an empty one still reaches core and is content_required (-32603), like store_memory's.
  new_content: z
    .string()
    .meta({ description: "The corrected fact, self-contained (it replaces the old version's content)." }),
  update_reason: protoString(fields.updateReason)
    .optional()
    .meta({ description: "Why it changed ('price increase from April', 'user corrected the spelling')." }),
  idempotency_key: idempotencyKeyArgument,
});

export const updateFactOutput = z.object({
  old_memory_id: z.string().describe("The superseded version (kept, with valid_to set)."),
  new_memory_id: z.string().describe("The new current version."),
  supersedes_edge: z.string().describe("Id of the SUPERSEDES relation from the new to the old version."),
});

/**
 * Spec "MCP tools": service_update_fact (write) → GraphService.UpdateFact. Bi-temporal: the old
 * version is closed (valid_to = now), a new one created and linked by SUPERSEDES; nothing is deleted.
 */
export const updateFactTool = defineTool({
  name: "service_update_fact",
  title: "Update a fact",
  description:
    "Correct or update a stored fact that is no longer true. The old version is kept as history (still found by service_recall_at_time " +
    "for earlier dates) and a new current version replaces it in normal recall. Find the old memory's id with service_recall first, " +
    "then pass it as target_id. Use this instead of storing a contradicting new memory.",
  input: updateFactInput,
  output: updateFactOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  icons: [TOOL_ICONS.edit],
  async call(args, { clients, callOptions }) {
    const response = await keyedWrite(callOptions, args.idempotency_key, (options) =>
      clients.graph.updateFact(
        {
          targetId: args.target_id,
          newTitle: args.new_title,
          newContent: args.new_content,
          ...(args.update_reason !== undefined ? { updateReason: args.update_reason } : {}),
        },
        options,
      ),
    );
    return {
      structured: {
        old_memory_id: response.oldMemoryId,
        new_memory_id: response.newMemoryId,
        supersedes_edge: response.supersedesEdge,
      },
    };
  },
});
