import { z } from "zod";
import { quotaFields, quotaFieldsSchema } from "../translate/quota-fields.js";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const statsInput = z.strictObject({});

export const statsOutput = z
  .object({
    memories: z.number().int().describe("Memories (documents and entries) in the graph."),
    edges: z.number().int().describe("Relations between memories."),
    chunks: z.number().int().describe("Indexed text chunks."),
  })
  .extend(quotaFieldsSchema.shape);

/** Spec "Statistics", MCP stats tool: memories, edges, chunks and the quota fields → RecallService.GetStats. */
export const statsTool = defineTool({
  name: "service_stats",
  title: "Memory statistics",
  description:
    "Counts of the workspace's memory (memories, relations, chunks) and its quota (memoryLimit, memoriesUsed, warnAt80). " +
    "Call it when the user asks how much is stored or before storing many memories, to see how close the plan's limit is.",
  input: statsInput,
  output: statsOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.stats],
  async call(_args, { clients, callOptions }) {
    const response = await clients.recall.getStats({}, callOptions);
    return {
      structured: {
        memories: Number(response.memories),
        edges: Number(response.edges),
        chunks: Number(response.chunks),
        ...quotaFields(response.quota),
      },
      ...(response.quota?.hint ? { note: response.quota.hint } : {}),
    };
  },
});
