import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const paramsSchema = z.strictObject({
  id: z.uuid().describe("Any version of the lineage to erase"),
});

export const eraseMemoryResponseSchema = z
  .object({
    erased: z.literal(true),
    versions: z.int().describe("Versions of the lineage removed"),
    chunks: z.int().describe("Their chunks removed, with BM25 postings and vectors in every embedding space"),
    edges: z.int().describe("Edge rows removed (each direction of a link counts once)"),
  })
  .meta({ id: "EraseMemoryResult" });

/**
 * DELETE /api/v1/memories/{id} → LifecycleService/EraseMemory (admin scope; docs/erasure.md): the
 * deliberate, audited erasure of a whole lineage. Not a fact update: update_fact never deletes.
 */
export const memoryErasureRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().delete(
    "/memories/:id",
    {
      schema: {
        ...describeOperation(options, {
          id: "eraseMemory",
          summary: "Erase a memory lineage everywhere (every version, chunk, vector, edge, event)",
          tag: "memory",
          rpc: "memory.v1.LifecycleService/EraseMemory",
        }),
        params: paramsSchema,
        response: { 200: eraseMemoryResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request, reply) => {
      const result = await options.clients.lifecycle.eraseMemory(
        { id: request.params.id },
        coreCall(request, options),
      );
      return reply.send({
        erased: true as const,
        versions: result.versions,
        chunks: result.chunks,
        edges: result.edges,
      });
    },
  );
};
