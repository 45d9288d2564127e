import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { UpdateFactRequestSchema } from "../../gen/memory/v1/graph_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";
import { MEMORY_BODY_LIMIT } from "./memory-entries.js";

const fields = UpdateFactRequestSchema.field;

const paramsSchema = z.strictObject({
  id: protoString(fields.targetId).describe("The version to supersede"),
});

/** The MCP tool's arguments (new_title, new_content, update_reason) in REST camelCase. */
export const updateFactRequestSchema = z
  .strictObject({
    newTitle: protoString(fields.newTitle),
    newContent: z.string().describe("Up to 100 KB"),
    updateReason: protoString(fields.updateReason).optional(),
  })
  .meta({ id: "UpdateFactRequest" });

/** Spec "Update-fact result" in REST camelCase. */
export const updateFactResponseSchema = z
  .object({ oldMemoryId: z.string(), newMemoryId: z.string(), supersedesEdge: z.string() })
  .meta({ id: "UpdateFactResult" });

/**
 * POST /api/v1/memory/{id}/versions → GraphService/UpdateFact: closes the version (valid_to = now)
 * and creates a new one linked by SUPERSEDES (spec "States and transitions"). Nothing is deleted.
 */
export const factVersionRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/memory/:id/versions",
    {
      bodyLimit: MEMORY_BODY_LIMIT,
      schema: {
        ...describeOperation(options, {
          id: "updateFact",
          summary: "Supersede a memory with a new version (bi-temporal update)",
          tag: "memory",
          rpc: "memory.v1.GraphService/UpdateFact",
        }),
        params: paramsSchema,
        body: updateFactRequestSchema,
        response: { 201: updateFactResponseSchema, ...errorResponses(options.auth, 402, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { newTitle, newContent, updateReason } = request.body;
      const result = await options.clients.graph.updateFact(
        {
          targetId: request.params.id,
          newTitle,
          newContent,
          ...(updateReason === undefined ? {} : { updateReason }),
        },
        coreCall(request, options),
      );
      return reply.code(201).send({
        oldMemoryId: result.oldMemoryId,
        newMemoryId: result.newMemoryId,
        supersedesEdge: result.supersedesEdge,
      });
    },
  );
};
