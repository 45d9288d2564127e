import { z } from "zod";
import { protoInt, protoString } from "../../gateway-kit/proto-rules.js";
import { recallFilterMessage } from "../../gateway-kit/recall-filter-message.js";
import { RecallRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import { explainInput, explanationOfHit, explanationOutput } from "../translate/explanation-of-hit.js";
import {
  checkFilterRange,
  filterWordsOf,
  recallFilterArguments,
} from "../translate/recall-filter-arguments.js";
import { defineTool, READ_ONLY_HINTS } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

// Bounds (query length, k, hops) come from the proto, as core enforces them.
const fields = RecallRequestSchema.field;

export const recallInput = z
  .strictObject({
    query: protoString(fields.query).describe(
      "What to look for, in plain words (German or English): a question, a name, a topic.",
    ),
    k: protoInt(fields.k).optional().meta({ default: 5, description: "How many hits to return." }),
    hops: protoInt(fields.hops).optional().meta({
      default: 2,
      description: "How far to follow relations from the best hits; 0 returns direct matches only.",
    }),
    explain: explainInput,
    ...recallFilterArguments,
  })
  .superRefine(checkFilterRange);

export const recallOutput = z.object({
  hits: z.array(
    z.object({
      memory_id: z
        .string()
        .describe("The memory of the hit; turns of one conversation session are hits sharing it."),
      title: z.string(),
      content: z
        .string()
        .describe("The best-matching passage of the memory; for a conversation, one turn (Speaker: text)."),
      score: z.number().describe("Relevance, higher is better; the scale depends on the ranking stage."),
      source: z.string().describe('Which search found it: "fulltext", "vector", "hybrid" or "graph".'),
      explanation: explanationOutput.optional(),
    }),
  ),
  elapsed_ms: z.number().int().describe("Time the search took in the memory service."),
});

/** Spec "MCP tools": service_recall (read) → RecallService.Recall; defaults are applied by core. */
export const recallTool = defineTool({
  name: "service_recall",
  title: "Recall memories",
  description:
    "Search the workspace's long-term memory (full-text, semantic and graph search, re-ranked) and return the best passages. " +
    "Call it before answering anything that may depend on what the user told you earlier or stored before: " +
    "people, projects, decisions, preferences, documents. Returns hits with memory_id, title, content and score; " +
    "an empty list means nothing relevant is stored. " +
    "Narrow it with memory_types, tags, origin (source prefix), created_after/created_before or kinds " +
    "when the user asks about one kind of memory, a source or a period.",
  input: recallInput,
  output: recallOutput,
  annotations: READ_ONLY_HINTS,
  icons: [TOOL_ICONS.search],
  async call(args, { clients, callOptions }) {
    const filter = recallFilterMessage(filterWordsOf(args));
    const response = await clients.recall.recall(
      {
        query: args.query,
        ...(args.k !== undefined ? { k: args.k } : {}),
        ...(args.hops !== undefined ? { hops: args.hops } : {}),
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
          score: hit.score,
          source: hit.source,
          ...(hit.explanation !== undefined ? { explanation: explanationOfHit(hit.explanation) } : {}),
        })),
        elapsed_ms: response.latencyMs,
      },
    };
  },
});
