import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoInt } from "../../gateway-kit/proto-rules.js";
import { IndexStatusSchema, MemoryKindSchema } from "../../gen/memory/v1/memory_pb.js";
import { ListRecentRequestSchema } from "../../gen/memory/v1/recall_service_pb.js";
import { enumWord, enumWords } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/** k 1..50, default 10 (spec "Limits": list_recent k). Query strings carry text, hence coerce. */
const recentQuerySchema = z.strictObject({
  k: protoInt(ListRecentRequestSchema.field.k, { coerce: true })
    .optional()
    .describe("Items to return, 1 to 50; 10 when unset"),
});

/** Spec "Recent item" in REST camelCase. */
export const recentResponseSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        status: z.enum(enumWords(IndexStatusSchema)),
        indexedChunks: z.int(),
        createdAt: z.string().describe("ISO 8601; the list is sorted by this, newest first"),
        updatedAt: z.string(),
        kind: z.enum(enumWords(MemoryKindSchema)),
      }),
    ),
    count: z.int(),
  })
  .meta({ id: "RecentMemories" });

/** GET /api/v1/memory/recent → RecallService/ListRecent. */
export const recentRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/memory/recent",
    {
      schema: {
        ...describeOperation(options, {
          id: "listRecent",
          summary: "Newest memories first",
          tag: "memory",
          rpc: "memory.v1.RecallService/ListRecent",
        }),
        querystring: recentQuerySchema,
        response: { 200: recentResponseSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const { k } = request.query;
      const result = await options.clients.recall.listRecent(
        k === undefined ? {} : { k },
        coreCall(request, options),
      );
      return {
        items: result.items.map((item) => ({
          id: item.id,
          title: item.title,
          status: enumWord(IndexStatusSchema, item.status),
          indexedChunks: item.indexedChunks,
          createdAt: isoTime(item.createdAt) ?? "",
          updatedAt: isoTime(item.updatedAt) ?? "",
          kind: enumWord(MemoryKindSchema, item.kind),
        })),
        count: result.count,
      };
    },
  );
};
