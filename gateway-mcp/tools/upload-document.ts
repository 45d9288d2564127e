import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { UploadDocumentRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { storedMemoryResult, uploadedDocumentSchema } from "../translate/stored-memory-result.js";
import { idempotencyKeyArgument, keyedWrite } from "./idempotency-key.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = UploadDocumentRequestSchema.field;

export const uploadDocumentInput = z.strictObject({
  title: protoString(fields.title).optional().meta({
    description:
      "Document title; an existing document with the same title is replaced. Default: derived from the content.",
  }),
  content: z
    .string()
    .optional()
    .meta({ description: "Full text, Markdown or plain, up to 1,000,000 characters." }),
  source: protoString(fields.source).optional().meta({ description: "Source URL or path." }),
  idempotency_key: idempotencyKeyArgument,
});

/**
 * Spec "MCP tools": service_upload_document (write) → IngestService.UploadDocument; upsert by title
 * (rule 3): the old document goes only after the new one is indexed, its ids in
 * replaced_document_ids. Above 10,000 characters core answers status "queued".
 */
export const uploadDocumentTool = defineTool({
  name: "service_upload_document",
  title: "Upload a document",
  description:
    "Store a whole document (notes, a specification, meeting minutes, a web page's text) so its passages can be recalled. " +
    "A document with the same title is replaced by the new version (the ids it replaced are returned). " +
    "Long documents (over 10,000 characters) are indexed in the background: status is then 'queued'. " +
    "For single facts use service_store_memory.",
  input: uploadDocumentInput,
  output: uploadedDocumentSchema,
  requiredForCore: ["content"],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  icons: [TOOL_ICONS.document],
  async call(args, { clients, callOptions }) {
    const response = await keyedWrite(callOptions, args.idempotency_key, (options) =>
      clients.ingest.uploadDocument(
        {
          content: args.content ?? "",
          ...(args.title !== undefined ? { title: args.title } : {}),
          ...(args.source !== undefined ? { source: args.source } : {}),
        },
        options,
      ),
    );
    const hint = response.memory?.quota?.hint;
    return {
      structured: {
        ...storedMemoryResult(response.memory),
        replaced_document_ids: response.memory?.replacedDocumentIds ?? [],
      },
      ...(hint ? { note: hint } : {}),
    };
  },
});
