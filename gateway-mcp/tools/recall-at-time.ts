import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { protoInt, protoString } from "../../gateway-kit/proto-rules.js";
import { recallFilterMessage } from "../../gateway-kit/recall-filter-message.js";
import { RecallRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import { explainInput, explanationOfHit, explanationOutput } from "../translate/explanation-of-hit.js";
import { isoFromTimestamp } from "../translate/iso-from-timestamp.js";
import { parseIsoInstant } from "../translate/parse-iso-instant.js";
import {
  checkFilterRange,
  filterWordsOf,
  recallFilterArguments,
} from "../translate/recall-filter-arguments.js";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = RecallRequestSchema.field;

export const recallAtTimeInput = z
  .strictObject({
    query: protoString(fields.query).describe("What to look for, in plain words (German or English)."),
    as_of: z
      .string()
      .refine((text) => parseIsoInstant(text) !== undefined, {
        message: "must be an ISO 8601 date-time with offset (2025-03-01T12:00:00Z) or a date (2025-03-01)",
      })
      .optional()
      .meta({
        description:
          "The instant to look at, ISO 8601 with Z or an offset (2025-03-01T12:00:00Z), or a date (midnight UTC). Default: now.",
      }),
    k: protoInt(fields.k).optional().meta({ default: 5, description: "How many hits to return." }),
    explain: explainInput,
    ...recallFilterArguments,
  })
  .superRefine(checkFilterRange);

export const recallAtTimeOutput = z.object({
  hits: z.array(
    z.object({
      memory_id: z.string(),
      title: z.string(),
      content: z.string(),
      valid_from: z
        .string()
        .describe("ISO 8601: since when this version was valid; for a conversation turn, its message time."),
      valid_to: z.string().nullable().describe("ISO 8601: when it was superseded; null while still valid."),
      score: z.number().describe("Relevance, higher is better; the scale depends on the ranking stage."),
      explanation: explanationOutput.optional(),
    }),
  ),
});

/**
 * Spec "MCP tools": service_recall_at_time (read) → RecallService.Recall with as_of. Core keeps
 * only versions with valid_from <= as_of < valid_to (or valid_to unset); as_of unset means now.
 */
export const recallAtTimeTool = defineTool({
  name: "service_recall_at_time",
  title: "Recall memories as of a point in time",
  description:
    "Search memory as it was at a given instant: only versions of facts that were valid then are returned, " +
    "each with valid_from and valid_to. Use it for questions like 'what did we know in March?' or " +
    "'what was the price before the update?'. For current knowledge use service_recall. " +
    "Takes the same filters as service_recall (memory_types, tags, origin, created_after/created_before, kinds).",
  input: recallAtTimeInput,
  output: recallAtTimeOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.history],
  async call(args, { clients, callOptions }) {
    const filter = recallFilterMessage(filterWordsOf(args));
    const asOf = args.as_of === undefined ? undefined : parseIsoInstant(args.as_of);
    const response = await clients.recall.recall(
      {
        query: args.query,
        ...(args.k !== undefined ? { k: args.k } : {}),
        ...(asOf !== undefined ? { asOf: timestampFromDate(asOf) } : {}),
        ...(args.explain ? { explain: true } : {}),
        ...(filter !== undefined ? { filter } : {}),
      },
      callOptions,
    );
    return {
      structured: {
        hits: response.hits.map((hit) => ({
          memory_id: hit.memoryId,
          title: hit.title,
          content: hit.content,
          valid_from: isoFromTimestamp(hit.validFrom) ?? "",
          valid_to: isoFromTimestamp(hit.validTo),
          score: hit.score,
          ...(hit.explanation !== undefined ? { explanation: explanationOfHit(hit.explanation) } : {}),
        })),
      },
    };
  },
});
