import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoInt, protoString } from "../../gateway-kit/proto-rules.js";
import {
  filterKinds,
  filterMemoryTypes,
  filterOrigin,
  filterTags,
  filterTagsMatch,
  recallFilterMessage,
} from "../../gateway-kit/recall-filter-message.js";
import { type RecallExplanation, RecallRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const fields = RecallRequestSchema.field;

/** Spec "Recall request": query required, k 1..25 (default 5), hops 0..3 (default 2). */
export const recallRequestSchema = z
  .strictObject({
    query: protoString(fields.query).describe("Free text, German or English"),
    k: protoInt(fields.k).optional().describe("Hits to return; 5 when unset"),
    hops: protoInt(fields.hops).optional().describe("Graph hops from the best seeds; 2 when unset"),
    explain: z.boolean().optional().describe("Return per hit each stage's rank and score; off when unset"),
    // Filters (ADR 0220, docs/rest.md "Recall filters"): every condition given must hold.
    memoryTypes: filterMemoryTypes.optional().describe("Only memories of these types"),
    tags: filterTags.optional().describe("Only memories carrying these tags (see tagsMatch)"),
    tagsMatch: filterTagsMatch.optional().describe("any (default): at least one of tags; all: every one"),
    origin: filterOrigin
      .optional()
      .describe("Only memories whose source starts with this text (case-sensitive)"),
    createdAfter: z.iso
      .datetime({ offset: true, error: "must be an RFC 3339 date-time with Z or an offset" })
      .optional()
      .describe("Only memories stored at or after this instant (RFC 3339)"),
    createdBefore: z.iso
      .datetime({ offset: true, error: "must be an RFC 3339 date-time with Z or an offset" })
      .optional()
      .describe("Only memories stored before this instant (RFC 3339)"),
    kinds: filterKinds.optional().describe("Only documents, only entries, or both"),
  })
  .superRefine((body, ctx) => {
    if (
      body.createdAfter !== undefined &&
      body.createdBefore !== undefined &&
      new Date(body.createdAfter) >= new Date(body.createdBefore)
    ) {
      ctx.addIssue({ code: "custom", path: ["createdAfter"], message: "must be earlier than createdBefore" });
    }
    if (body.tagsMatch === "all" && body.tags === undefined) {
      ctx.addIssue({ code: "custom", path: ["tagsMatch"], message: "all needs tags" });
    }
  })
  .meta({ id: "RecallRequest" });

/** Spec "Recall result, REST". */
export const recallResponseSchema = z
  .object({
    hits: z.array(
      z.object({
        memoryId: z
          .string()
          .describe(
            "The memory the hit belongs to; several hits share it when they are turns of one conversation session",
          ),
        title: z.string(),
        snippet: z
          .string()
          .describe(
            "The best-matching passage, trimmed around the match; for a conversation session, one turn (Speaker: text)",
          ),
        score: z.number(),
        source: z.string().describe("fulltext, vector, hybrid or graph: the channel that found it"),
        hops: z.int().describe("0 for direct matches, n when reached over n graph hops"),
        page: z
          .int()
          .optional()
          .describe(
            "PDF uploads: the 1-based page the passage begins on, to cite it; absent for other memories",
          ),
        pageEnd: z
          .int()
          .optional()
          .describe("PDF uploads: the page the passage ends on (equal to page on one page)"),
        explanation: z
          .object({
            fulltextRank: z.int().optional(),
            fulltextScore: z.number().optional().describe("BM25 score of the memory's best chunk"),
            matchedTerms: z
              .array(z.string())
              .describe("Query lexemes (stemmed, with translations) in the chunk"),
            vectorRank: z.int().optional(),
            vectorDistance: z.number().optional().describe("Cosine distance, lower is closer"),
            fulltextShare: z.number().optional().describe("Full text's share of the fused score, 0..1"),
            fusedScore: z.number(),
            rerankScore: z.number().optional(),
            hops: z.int(),
            graphPath: z
              .array(z.string())
              .describe(
                "Graph hits: relation types walked from the seed, in order; empty for direct matches",
              ),
            graphSeedId: z.string().optional().describe("Graph hits: the memoryId of the seed"),
            queryTime: z
              .object({ text: z.string(), from: z.string(), to: z.string() })
              .optional()
              .describe(
                "The query's time expression and the interval [from, to) of valid time it names (RFC 3339), relative to the request time",
              ),
            timeMatch: z
              .number()
              .optional()
              .describe("How well the hit's valid time matches queryTime: 1 inside, decaying outside"),
          })
          .optional()
          .describe("Why the hit was recalled; only with explain"),
      }),
    ),
    latencyMs: z.int(),
  })
  .meta({ id: "RecallResult" });

const explanationOf = (e: RecallExplanation) => ({
  ...(e.fulltextRank !== undefined ? { fulltextRank: e.fulltextRank } : {}),
  ...(e.fulltextScore !== undefined ? { fulltextScore: e.fulltextScore } : {}),
  matchedTerms: [...e.matchedTerms],
  ...(e.vectorRank !== undefined ? { vectorRank: e.vectorRank } : {}),
  ...(e.vectorDistance !== undefined ? { vectorDistance: e.vectorDistance } : {}),
  ...(e.fulltextShare !== undefined ? { fulltextShare: e.fulltextShare } : {}),
  fusedScore: e.fusedScore,
  ...(e.rerankScore !== undefined ? { rerankScore: e.rerankScore } : {}),
  hops: e.hops,
  graphPath: [...e.graphPath],
  ...(e.graphSeedId !== undefined ? { graphSeedId: e.graphSeedId } : {}),
  ...(e.queryTime?.from !== undefined && e.queryTime.to !== undefined
    ? {
        queryTime: {
          text: e.queryTime.text,
          from: timestampDate(e.queryTime.from).toISOString(),
          to: timestampDate(e.queryTime.to).toISOString(),
        },
      }
    : {}),
  ...(e.timeMatch !== undefined ? { timeMatch: e.timeMatch } : {}),
});

/** POST …/memory/recall → RecallService/Recall. Both under /api, Bearer under /api/v1. */
export const recallRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/memory/recall",
    {
      schema: {
        ...describeOperation(options, {
          id: "recall",
          summary: "Hybrid recall over the tenant's memories",
          description: "Full text (BM25, German analyzer) + vectors + graph hops, re-ranked.",
          tag: "memory",
          rpc: "memory.v1.RecallService/Recall",
        }),
        body: recallRequestSchema,
        response: { 200: recallResponseSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const { query, k, hops, explain, createdAfter, createdBefore, ...words } = request.body;
      const filter = recallFilterMessage({
        memoryTypes: words.memoryTypes,
        tags: words.tags,
        tagsMatch: words.tagsMatch,
        origin: words.origin,
        createdAfter: createdAfter === undefined ? undefined : new Date(createdAfter),
        createdBefore: createdBefore === undefined ? undefined : new Date(createdBefore),
        kinds: words.kinds,
      });
      const result = await options.clients.recall.recall(
        {
          query,
          ...(k === undefined ? {} : { k }),
          ...(hops === undefined ? {} : { hops }),
          ...(explain ? { explain: true } : {}),
          ...(filter !== undefined ? { filter } : {}),
        },
        coreCall(request, options),
      );
      return {
        hits: result.hits.map((hit) => ({
          memoryId: hit.memoryId,
          title: hit.title,
          snippet: hit.snippet,
          score: hit.score,
          source: hit.source,
          hops: hit.hops,
          ...(hit.page === undefined ? {} : { page: hit.page }),
          ...(hit.pageEnd === undefined ? {} : { pageEnd: hit.pageEnd }),
          ...(hit.explanation !== undefined ? { explanation: explanationOf(hit.explanation) } : {}),
        })),
        latencyMs: result.latencyMs,
      };
    },
  );
};
