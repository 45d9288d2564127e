import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoEnum } from "../../gateway-kit/proto-enum-schema.js";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { ErrorInfoSchema, PlanGateSchema } from "../../gen/memory/v1/errors_pb.js";
import {
  type BatchEntryError,
  type StoreMemoryRequest,
  StoreMemoryRequestSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import { MemoryTypeSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumNumber } from "../../lib/proto-enum-words.js";
import { errorBodySchema, errorResponses, planGateBodySchema } from "../error-schemas.js";
import { toRequestError } from "../http-errors.js";
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
      const result = await options.clients.ingest.storeMemory(
        storeRequest(request.body),
        coreCall(request, options),
      );
      return reply.code(result.memory?.unchanged ? 200 : 201).send(storedMemoryBody(result.memory));
    },
  );

  app.withTypeProvider<ZodTypeProvider>().post(
    "/memory/entries/batch",
    {
      bodyLimit: MAX_BATCH_ENTRIES * MEMORY_BODY_LIMIT,
      config: { validationStatus: 422 },
      schema: {
        ...describeOperation(options, {
          id: "createMemoryEntries",
          summary: "Store up to 100 memory entries in one call",
          description:
            "Each entry is stored as POST /api/v1/memory/entries would store it; results come back in request order, " +
            "each with the status and body that route would have answered for the entry alone (201/200 with the " +
            "stored memory, or an error such as 413 or 402), so one bad entry does not fail the others. A body that " +
            "breaks the schema (a missing memory_type, an unknown field) is refused as a whole with 422 before " +
            "anything is stored. Counts one request per entry against the rate limit.",
          tag: "memory",
          rpc: "memory.v1.IngestService/StoreMemories",
        }),
        body: memoryEntriesRequestSchema,
        response: { 200: memoryEntriesResponseSchema, ...errorResponses(options.auth, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { results } = await options.clients.ingest.storeMemories(
        { memories: request.body.memories.map(storeRequest) },
        coreCall(request, options),
      );
      const operation = "POST /api/v1/memory/entries";
      return reply.code(200).send({
        results: results.map(({ outcome }) =>
          outcome.case === "memory"
            ? { status: outcome.value.unchanged ? 200 : 201, memory: storedMemoryBody(outcome.value) }
            : entryErrorResult(outcome.case === "error" ? outcome.value : undefined, operation),
        ),
      });
    },
  );
};

/** Entries per batch (proto StoreMemoriesRequest.memories). */
export const MAX_BATCH_ENTRIES = 100;

const memoryEntriesRequestSchema = z
  .strictObject({
    // Named as in the proto, so core's messages ("memories[3].tags[0]: ...") name the REST field.
    memories: z
      .array(memoryEntryRequestSchema)
      .min(1)
      .max(MAX_BATCH_ENTRIES)
      .describe("1 to 100 entries, each a MemoryEntryRequest"),
  })
  .meta({ id: "MemoryEntriesRequest" });

const memoryEntriesResponseSchema = z
  .object({
    results: z.array(
      z.union([
        z.object({
          status: z.union([z.literal(200), z.literal(201)]),
          memory: storedMemorySchema,
        }),
        z.object({
          status: z.int().describe("What POST /api/v1/memory/entries would have answered for this entry"),
          error: z.union([planGateBodySchema, errorBodySchema]),
        }),
      ]),
    ),
  })
  .meta({ id: "MemoryEntriesResponse" });

function storeRequest(body: z.infer<typeof memoryEntryRequestSchema>): Omit<StoreMemoryRequest, "$typeName"> {
  const { memoryType, memory_type, title, content, tags, source, metadata } = body;
  return {
    title,
    content,
    memoryType: enumNumber(MemoryTypeSchema, memoryType ?? memory_type ?? ""),
    tags: tags ?? [],
    ...(source === undefined ? {} : { source }),
    ...(metadata === undefined ? {} : { metadata: metadata as JsonObject }),
  };
}

/**
 * An entry's error as the single route answers it: the same status table, the same body. No
 * outcome at all (never sent by core) is a 500 like any unmodelled failure.
 */
function entryErrorResult(error: BatchEntryError | undefined, operation: string) {
  const details = [
    ...(error?.info ? [{ desc: ErrorInfoSchema, value: error.info }] : []),
    ...(error?.planGate ? [{ desc: PlanGateSchema, value: error.planGate }] : []),
  ];
  const status = new ConnectError(
    error?.message ?? "internal error",
    error?.code ?? Code.Internal,
    undefined,
    details,
  );
  const mapped = toRequestError(status, { validationStatus: 422, operation });
  return { status: mapped.status, error: mapped.body as EntryErrorBody };
}

type EntryErrorBody = z.infer<typeof errorBodySchema> | z.infer<typeof planGateBodySchema>;
