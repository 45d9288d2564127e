import type { JsonObject } from "@bufbuild/protobuf";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnum } from "../../gateway-kit/proto-enum-schema.js";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { StoreMemoryRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { MemoryTypeSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";
import { storedMemoryBody, storedMemorySchema } from "../stored-memory.js";
import { metadataSchema } from "./documents.js";

/**
 * Spec "Quotas and sizes": a memory holds up to 100 KB. The body may carry that plus an envelope
 * (title, tags, source, metadata); larger bodies are refused with 413 before they are read. Core
 * decides on the content itself (too_large → 413).
 */
export const MEMORY_BODY_LIMIT = 100 * 1024 + 64 * 1024;

const fields = StoreMemoryRequestSchema.field;

/** Spec "Memory type": REST creation accepts all six values of the proto enum. */
const memoryTypeSchema = protoEnum(MemoryTypeSchema).describe(
  "semantic, episodic, procedural, reference, working or entity",
);

/**
 * The spec writes this route's type field `memory_type` (snake_case) while REST bodies are
 * camelCase (spec "Naming convention"). Both spellings are accepted so clients written against
 * either sentence work; exactly one is required (docs/rest.md "Naming").
 */
export const memoryEntryRequestSchema = z
  .strictObject({
    memoryType: memoryTypeSchema.optional().describe("Required unless memory_type is given"),
    memory_type: memoryTypeSchema
      .optional()
      .describe("The spec's spelling of memoryType; give one of the two"),
    title: protoString(fields.title, { required: true }),
    content: z.string().min(1, { error: "must not be empty" }).describe("Up to 100 KB"),
    tags: z.array(z.string()).optional().describe("Up to 64 tags of 1 to 100 characters"),
    source: protoString(fields.source).optional().describe("Free text: URL, path or origin"),
    metadata: metadataSchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.memoryType === undefined && body.memory_type === undefined) {
      ctx.addIssue({ code: "custom", path: ["memory_type"], message: "is required" });
    } else if (body.memoryType !== undefined && body.memory_type !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["memoryType"],
        message: "give memoryType or memory_type, not both",
      });
    }
  })
  // JSON Schema for the either-or that the refinement above checks.
  .meta({ id: "MemoryEntryRequest", oneOf: [{ required: ["memoryType"] }, { required: ["memory_type"] }] });

/** POST /api/v1/memory/entries → IngestService/StoreMemory (append-only entry). */
export const memoryEntryRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/memory/entries",
    {
      bodyLimit: MEMORY_BODY_LIMIT,
      // Spec "HTTP status codes": 422 for a missing field or a memory_type outside the enum.
      config: { validationStatus: 422 },
      schema: {
        ...describeOperation(options, {
          id: "createMemoryEntry",
          summary: "Store a memory entry (append-only)",
          description:
            "201 with the stored memory; 200 with unchanged=true when byte-identical content with the same title exists. " +
            "Versions of a fact are made with POST /api/v1/memory/{id}/versions.",
          tag: "memory",
          rpc: "memory.v1.IngestService/StoreMemory",
        }),
        body: memoryEntryRequestSchema,
        response: {
          200: storedMemorySchema,
          201: storedMemorySchema,
          ...errorResponses(options.auth, 402, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { memoryType, memory_type, title, content, tags, source, metadata } = request.body;
      const type = memoryType ?? memory_type ?? "";
      const result = await options.clients.ingest.storeMemory(
        {
          title,
          content,
          memoryType: enumNumber(MemoryTypeSchema, type),
          ...(tags === undefined ? {} : { tags }),
          ...(source === undefined ? {} : { source }),
          ...(metadata === undefined ? {} : { metadata: metadata as JsonObject }),
        },
        coreCall(request, options),
      );
      return reply.code(result.memory?.unchanged ? 200 : 201).send(storedMemoryBody(result.memory));
    },
  );
};
