import type { JsonObject } from "@bufbuild/protobuf";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { IngestDocumentRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { IndexStatusSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumWord } from "../../lib/proto-enum-words.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

/**
 * Spec "Quotas and sizes": documents up to 10 MB. The HTTP body may carry that much content plus
 * an envelope (title, source, metadata, JSON escaping headroom); larger bodies are refused with 413
 * before they are read. Core decides on the content itself (too_large → 413).
 */
export const DOCUMENT_BODY_LIMIT = 10 * 1024 * 1024 + 256 * 1024;

const fields = IngestDocumentRequestSchema.field;

/** Free-form JSON object (spec: "metadata: object, free-form keys") → google.protobuf.Struct. */
export const metadataSchema = z
  .record(z.string(), z.unknown())
  .describe("Free-form keys, stored with the memory");

/** Spec "Document ingest request (REST)". */
export const documentRequestSchema = z
  .strictObject({
    title: protoString(fields.title),
    content: z.string().describe("Full text, Markdown or plain"),
    source: protoString(fields.source).nullable().optional().describe("Source URL or path"),
    metadata: metadataSchema.optional(),
  })
  .meta({ id: "DocumentIngestRequest" });

/** Spec: accepted response `{documentId, status: queued}`. */
export const documentAcceptedSchema = z
  .object({
    documentId: z.string(),
    status: z.literal("queued").describe("Indexing runs in the background; the document appears when ready"),
  })
  .meta({ id: "DocumentAccepted" });

/** POST …/documents → IngestService/IngestDocument: 202, indexed by the worker. */
export const documentRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/documents",
    {
      bodyLimit: DOCUMENT_BODY_LIMIT,
      schema: {
        ...describeOperation(options, {
          id: "ingestDocument",
          summary: "Ingest a document (indexed asynchronously)",
          description: "Up to 10 MB. Answers 202 at once; no polling endpoint exists.",
          tag: "documents",
          rpc: "memory.v1.IngestService/IngestDocument",
        }),
        body: documentRequestSchema,
        response: { 202: documentAcceptedSchema, ...errorResponses(options.auth, 402, 413, 415) },
      },
    },
    async (request, reply) => {
      const { title, content, source, metadata } = request.body;
      const result = await options.clients.ingest.ingestDocument(
        {
          title,
          content,
          ...(source == null ? {} : { source }),
          ...(metadata === undefined ? {} : { metadata: metadata as JsonObject }),
        },
        coreCall(request, options),
      );
      // The schema admits only "queued" (spec); core promising otherwise would be a broken contract.
      const status = enumWord(IndexStatusSchema, result.status) as "queued";
      return reply.code(202).send({ documentId: result.documentId, status });
    },
  );
};
