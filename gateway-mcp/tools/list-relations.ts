import { z } from "zod";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const listRelationsInput = z.strictObject({
  memory_id: z
    .string()
    .min(1)
    .describe(
      "UUID of the memory whose relations to list (memory_id from service_recall or service_store_memory).",
    ),
});

export const listRelationsOutput = z.object({
  outgoing: z
    .array(z.object({ rel_type: z.string(), to: z.string().describe("memory_id of the target.") }))
    .describe("Relations from this memory to others."),
  incoming: z
    .array(z.object({ rel_type: z.string(), from: z.string().describe("memory_id of the source.") }))
    .describe("Relations from other memories to this one."),
});

/** Spec "MCP tools": service_list_relations (read) → GraphService.ListRelations. */
export const listRelationsTool = defineTool({
  name: "service_list_relations",
  title: "List relations of a memory",
  description:
    "List the typed relations of one memory in the knowledge graph: outgoing (rel_type, to) and incoming " +
    "(rel_type, from), e.g. OWNS, FOR_CLIENT, REFERENCES, SUPERSEDES. Use it to explore what a memory is " +
    "connected to or to find the newer version of a superseded fact. Unknown ids are a not-found error.",
  input: listRelationsInput,
  output: listRelationsOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.graph],
  async call(args, { clients, callOptions }) {
    const response = await clients.graph.listRelations({ memoryId: args.memory_id }, callOptions);
    return {
      structured: {
        outgoing: response.outgoing.map((r) => ({ rel_type: r.relType, to: r.to })),
        incoming: response.incoming.map((r) => ({ rel_type: r.relType, from: r.from })),
      },
    };
  },
});
