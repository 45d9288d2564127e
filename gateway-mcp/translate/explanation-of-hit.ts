import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { RecallExplanation } from "../../gen/memory/v1/recall_service_pb.js";

/** Why a hit was recalled (proto RecallExplanation), for tools called with `explain: true`. */
export const explanationOutput = z
  .object({
    fulltext_rank: z
      .number()
      .int()
      .optional()
      .describe("Rank in the full-text (BM25) search; absent: not found there."),
    fulltext_score: z.number().optional().describe("BM25 score of the memory's best passage."),
    matched_terms: z
      .array(z.string())
      .describe("Query words (stemmed, with translations) found in the passage."),
    vector_rank: z
      .number()
      .int()
      .optional()
      .describe("Rank in the semantic (vector) search; absent: not found there."),
    vector_distance: z.number().optional().describe("Cosine distance to the query, lower is closer."),
    fulltext_share: z
      .number()
      .optional()
      .describe("Full text's share of the fused score for this query, 0 to 1."),
    fused_score: z.number().describe("Score after fusing the searches, before re-ranking."),
    rerank_score: z.number().optional().describe("The re-ranker's own score of the hit."),
    hops: z.number().int().describe("Graph hops from the match it was reached from; 0 for direct matches."),
    graph_path: z
      .array(z.string())
      .describe(
        "For graph hits: the relation types walked from the match, in order; empty for direct matches.",
      ),
    graph_seed_id: z
      .string()
      .optional()
      .describe("For graph hits: the memory_id of the match it was reached from."),
    query_time: z
      .object({ text: z.string(), from: z.string(), to: z.string() })
      .optional()
      .describe(
        "The query's time expression and the interval [from, to) of valid time it names (ISO 8601), relative to as_of or now.",
      ),
    time_match: z
      .number()
      .optional()
      .describe("How well the memory's valid time matches query_time: 1 inside, decaying outside."),
  })
  .describe("Why this memory was recalled.");

export const explainInput = z.boolean().optional().meta({
  default: false,
  description: "Also return, per hit, each search's rank and score (why it was recalled).",
});

export function explanationOfHit(e: RecallExplanation): z.infer<typeof explanationOutput> {
  return {
    ...(e.fulltextRank !== undefined ? { fulltext_rank: e.fulltextRank } : {}),
    ...(e.fulltextScore !== undefined ? { fulltext_score: e.fulltextScore } : {}),
    matched_terms: [...e.matchedTerms],
    ...(e.vectorRank !== undefined ? { vector_rank: e.vectorRank } : {}),
    ...(e.vectorDistance !== undefined ? { vector_distance: e.vectorDistance } : {}),
    ...(e.fulltextShare !== undefined ? { fulltext_share: e.fulltextShare } : {}),
    fused_score: e.fusedScore,
    ...(e.rerankScore !== undefined ? { rerank_score: e.rerankScore } : {}),
    hops: e.hops,
    graph_path: [...e.graphPath],
    ...(e.graphSeedId !== undefined ? { graph_seed_id: e.graphSeedId } : {}),
    ...(e.queryTime?.from !== undefined && e.queryTime.to !== undefined
      ? {
          query_time: {
            text: e.queryTime.text,
            from: timestampDate(e.queryTime.from).toISOString(),
            to: timestampDate(e.queryTime.to).toISOString(),
          },
        }
      : {}),
    ...(e.timeMatch !== undefined ? { time_match: e.timeMatch } : {}),
  };
}
