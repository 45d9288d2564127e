import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { ListVersionsRequestSchema, UpdateFactRequestSchema } from "../../gen/memory/v1/graph_service_pb.js";
import { MemoryKindSchema, MemoryTypeSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumWord, enumWords } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
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

const listParamsSchema = z.strictObject({
  id: protoString(ListVersionsRequestSchema.field.memoryId).describe("Any version of the fact"),
});

const listQuerySchema = z.strictObject({
  content: z
    .enum(["true", "false"])
    .optional()
    .describe("true: each version carries its full content (up to 100 KB each)"),
});

/** The bi-temporal history of one fact, oldest first. */
export const versionsResponseSchema = z
  .object({
    versions: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        validFrom: z.string().describe("Valid time: from when the fact held"),
        validTo: z.string().nullable().describe("Valid time: until when; null while it still holds"),
        recordedAt: z.string().describe("Transaction time: when this version was written"),
        supersedesId: z.string().nullable().describe("The version this one superseded (SUPERSEDES)"),
        updateReason: z.string().nullable(),
        content: z.string().optional().describe("The version's full text; only with ?content=true"),
        kind: z.enum(enumWords(MemoryKindSchema)).describe("document or entry (graph shape rules)"),
        memoryType: z.enum(enumWords(MemoryTypeSchema)).describe("The memory type (graph shape rules)"),
      }),
    ),
  })
  .meta({ id: "MemoryVersions" });

/**
 * GET …/memory/{id}/versions → GraphService/ListVersions: every version of the fact with valid and
 * recorded time (the dashboard's time axis).
 * POST …/memory/{id}/versions → GraphService/UpdateFact: closes the version (valid_to = now)
 * and creates a new one linked by SUPERSEDES (spec "States and transitions"). Nothing is deleted.
 */
export const factVersionRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/memory/:id/versions",
    {
      schema: {
        ...describeOperation(options, {
          id: "listVersions",
          summary: "Every version of a fact, oldest first, with valid and recorded time",
          tag: "memory",
          rpc: "memory.v1.GraphService/ListVersions",
        }),
        params: listParamsSchema,
        querystring: listQuerySchema,
        response: { 200: versionsResponseSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const { versions } = await options.clients.graph.listVersions(
        { memoryId: request.params.id, includeContent: request.query.content === "true" },
        coreCall(request, options),
      );
      return {
        versions: versions.map((v) => ({
          id: v.id,
          title: v.title,
          validFrom: isoTime(v.validFrom) ?? "",
          validTo: isoTime(v.validTo),
          recordedAt: isoTime(v.recordedAt) ?? "",
          supersedesId: v.supersedesId ?? null,
          updateReason: v.updateReason ?? null,
          ...(v.content === undefined ? {} : { content: v.content }),
          kind: enumWord(MemoryKindSchema, v.kind),
          memoryType: enumWord(MemoryTypeSchema, v.memoryType),
        })),
      };
    },
  );

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
