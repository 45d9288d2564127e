import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const paramsSchema = z.strictObject({
  id: z.uuid().describe("Any version of the lineage to erase"),
});

const querySchema = z.strictObject({
  dryRun: z
    .enum(["true", "false"])
    .optional()
    .describe("true: only the counts (and title) of what would go; nothing is erased or audited"),
});

export const eraseMemoryResponseSchema = z
  .object({
    erased: z.boolean().describe("false for a dry run"),
    title: z.string().describe("Title of the lineage's newest version, to name what goes"),
    versions: z.int().describe("Versions of the lineage removed"),
    chunks: z.int().describe("Their chunks removed, with BM25 postings and vectors in every embedding space"),
    edges: z.int().describe("Edge rows removed (each direction of a link counts once)"),
  })
  .meta({ id: "EraseMemoryResult" });

/**
 * DELETE /api/v1/memories/{id} (admin-scope token) and DELETE /api/memories/{id} (the dashboard's
 * session, ADR 0452) → LifecycleService/EraseMemory (docs/erasure.md): the deliberate, audited
 * erasure of a whole lineage. Not a fact update: update_fact never deletes. `?dryRun=true` says what
 * would go, so a confirmation can name it.
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
        querystring: querySchema,
        response: { 200: eraseMemoryResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request, reply) => {
      const result = await options.clients.lifecycle.eraseMemory(
        { id: request.params.id, dryRun: request.query.dryRun === "true" },
        coreCall(request, options),
      );
      return reply.send({
        erased: result.erased,
        title: result.title,
        versions: result.versions,
        chunks: result.chunks,
        edges: result.edges,
      });
    },
  );
};
