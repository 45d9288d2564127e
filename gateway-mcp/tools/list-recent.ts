import { z } from "zod";
import { protoInt } from "../../gateway-kit/proto-rules.js";
import { ListRecentRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import {
  INDEX_STATUS_NAMES,
  indexStatusName,
  MEMORY_KIND_NAMES,
  memoryKindName,
} from "../translate/enum-names.js";
import { isoFromTimestamp } from "../translate/iso-from-timestamp.js";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

export const listRecentInput = z.strictObject({
  k: protoInt(ListRecentRequestSchema.field.k)
    .optional()
    .meta({ default: 10, description: "How many items to return." }),
});

export const listRecentOutput = z.object({
  items: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        status: z.enum(INDEX_STATUS_NAMES),
        indexed_chunks: z.number().int(),
        created_at: z.string().describe("ISO 8601; the list is sorted by it, newest first."),
        updated_at: z.string().describe("ISO 8601."),
        kind: z.enum(MEMORY_KIND_NAMES).describe('"document" (uploaded) or "entry" (stored memory).'),
      }),
    )
    .describe("Newest first."),
  count: z.number().int().describe("Number of items returned."),
});

/**
 * Spec "Recent item": service_list_recent (read) → RecallService.ListRecent. Graph entities without
 * timestamps are not listed, so count differs from service_stats' memories on purpose (spec).
 */
export const listRecentTool = defineTool({
  name: "service_list_recent",
  title: "List recent memories",
  description:
    "List the most recently created memories and documents, newest first, with their indexing status. " +
    "Use it to see what was saved lately or to check that a just-stored memory is indexed; to find memories by topic use service_recall.",
  input: listRecentInput,
  output: listRecentOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.list],
  async call(args, { clients, callOptions }) {
    const response = await clients.recall.listRecent(args.k !== undefined ? { k: args.k } : {}, callOptions);
    return {
      structured: {
        items: response.items.map((item) => ({
          id: item.id,
          title: item.title,
          status: indexStatusName(item.status),
          indexed_chunks: item.indexedChunks,
          created_at: isoFromTimestamp(item.createdAt) ?? "",
          updated_at: isoFromTimestamp(item.updatedAt) ?? "",
          kind: memoryKindName(item.kind),
        })),
        count: response.count,
      },
    };
  },
});
