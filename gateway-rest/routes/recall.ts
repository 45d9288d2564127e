import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoInt, protoString } from "../../gateway-kit/proto-rules.js";
import { RecallRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const fields = RecallRequestSchema.field;

/** Spec "Recall request": query required, k 1..25 (default 5), hops 0..3 (default 2). */
export const recallRequestSchema = z
  .strictObject({
    query: protoString(fields.query).describe("Free text, German or English"),
    k: protoInt(fields.k).optional().describe("Hits to return; 5 when unset"),
    hops: protoInt(fields.hops).optional().describe("Graph hops from the best seeds; 2 when unset"),
  })
  .meta({ id: "RecallRequest" });

/** Spec "Recall result, REST". */
export const recallResponseSchema = z
  .object({
    hits: z.array(
      z.object({
        memoryId: z.string(),
        title: z.string(),
        snippet: z.string().describe("The best-matching passage, trimmed around the match"),
        score: z.number(),
        source: z.string().describe("fulltext, vector, hybrid or graph: the channel that found it"),
        hops: z.int().describe("0 for direct matches, n when reached over n graph hops"),
      }),
    ),
    latencyMs: z.int(),
  })
  .meta({ id: "RecallResult" });

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
      const { query, k, hops } = request.body;
      const result = await options.clients.recall.recall(
        { query, ...(k === undefined ? {} : { k }), ...(hops === undefined ? {} : { hops }) },
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
        })),
        latencyMs: result.latencyMs,
      };
    },
  );
};
