import { z } from "zod";
import { explainInput, explanationOfHit, explanationOutput } from "../translate/explanation-of-hit.js";
import { defineTool } from "./tool-definition.js";

export const recallInput = z.strictObject({
  query: z
    .string()
    .min(1)
    .regex(/\S/, "must not be empty")
    .describe("What to look for, in plain words (German or English): a question, a name, a topic."),
  k: z.number().int().min(1).max(25).optional().meta({ default: 5, description: "How many hits to return." }),
  hops: z.number().int().min(0).max(3).optional().meta({
    default: 2,
    description: "How far to follow relations from the best hits; 0 returns direct matches only.",
  }),
  explain: explainInput,
});

export const recallOutput = z.object({
  hits: z.array(
    z.object({
      memory_id: z.string(),
      title: z.string(),
      content: z.string().describe("The best-matching passage of the memory."),
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
    "an empty list means nothing relevant is stored.",
  input: recallInput,
  output: recallOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, { clients, callOptions }) {
    const response = await clients.recall.recall(
      {
        query: args.query,
        ...(args.k !== undefined ? { k: args.k } : {}),
        ...(args.hops !== undefined ? { hops: args.hops } : {}),
        ...(args.explain ? { explain: true } : {}),
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
