import { z } from "zod";
import { relationArguments } from "./relation-arguments.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const linkOutput = z.object({
  edge_id: z.string(),
  inverse_edge_id: z.string().describe("The inverse relation, created with it."),
});

/**
 * Spec "MCP tools": service_link (write) → GraphService.Link; writes the edge and its inverse
 * (rule 4), idempotent for the same triple; a type/shape violation comes back as -32602.
 */
export const linkTool = defineTool({
  name: "service_link",
  title: "Link two memories",
  description:
    "Record a typed relation between two stored memories, e.g. a project FOR_CLIENT a company, a person OWNS a task, a note REFERENCES a document. " +
    "The inverse relation is created automatically. Use memory_ids from service_recall or service_store_memory. " +
    "Linking the same pair with the same type again changes nothing.",
  input: relationArguments,
  output: linkOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.link],
  async call(args, { clients, callOptions }) {
    const response = await clients.graph.link(
      { fromId: args.from_id, toId: args.to_id, relType: args.rel_type },
      callOptions,
    );
    return { structured: { edge_id: response.edgeId, inverse_edge_id: response.inverseEdgeId } };
  },
});
