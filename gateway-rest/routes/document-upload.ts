import type { JsonObject } from "@bufbuild/protobuf";
import multipart from "@fastify/multipart";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";
import { storedMemoryBody, storedMemorySchema } from "../stored-memory.js";

/** Spec "Quotas and sizes": documents up to 10 MB; core checks again (too_large → 413). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** title, source and metadata: generous for metadata JSON, far below the file. */
const MAX_FIELD_BYTES = 256 * 1024;
const TEXT_FIELDS = ["title", "source", "metadata"] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** A refusal of the form itself, answered by the gateway's error handler with its status. */
class FormError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The form as documented (OpenAPI); the handler reads the parts itself. */
const uploadFormSchema = z
  .object({
    file: z
      .string()
      .meta({ format: "binary" })
      .describe("The file: PDF, DOCX, HTML, Markdown or plain text, up to 10 MB"),
    title: z
      .string()
      .optional()
      .describe("Default: the file name; a document with the same title is replaced"),
    source: z.string().optional().describe("Source URL or path"),
    metadata: z
      .string()
      .optional()
      .describe("A JSON object, stored with the memory (metadata.file is set by the upload)"),
  })
  .meta({ id: "DocumentUploadForm" });

export const uploadedFileSchema = storedMemorySchema
  .extend({
    fileType: z
      .enum(["pdf", "docx", "html", "markdown", "text"])
      .describe("The type read from the file's bytes"),
    pages: z.int().optional().describe("PDF: its pages; recall hits name the page they were found on"),
    characters: z.int().describe("Characters of the extracted text (Markdown)"),
  })
  .meta({ id: "UploadedFile" });

interface UploadForm {
  readonly file: { readonly data: Buffer; readonly filename: string; readonly mimetype: string };
  readonly fields: Partial<Record<TextField, string>>;
}

/** Multipart errors as the caller can act on them; anything else about the body is a 400. */
function formError(error: unknown): FormError {
  if (error instanceof FormError) return error;
  const code = (error as { code?: string }).code;
  if (code === "FST_REQ_FILE_TOO_LARGE") {
    return new FormError(413, `file: larger than 10 MB (${MAX_FILE_BYTES} bytes); split the document`);
  }
  if (code === "FST_FILES_LIMIT") return new FormError(400, "send one file per request, in the field 'file'");
  if (code === "FST_PARTS_LIMIT" || code === "FST_FIELDS_LIMIT") {
    return new FormError(400, `the form has too many fields; send file, title, source and metadata only`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FormError(400, `the multipart body cannot be read: ${message}`);
}

async function readForm(request: FastifyRequest): Promise<UploadForm> {
  if (!request.isMultipart()) {
    throw new FormError(415, "send multipart/form-data with the document in the field 'file'");
  }
  let file: UploadForm["file"] | undefined;
  const fields: Partial<Record<TextField, string>> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === "file") {
        if (part.fieldname !== "file")
          throw new FormError(400, `unknown file field '${part.fieldname}'; send the document as 'file'`);
        file = { data: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype };
      } else if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) {
        fields[part.fieldname as TextField] = String(part.value);
      } else {
        throw new FormError(
          400,
          `unknown field '${part.fieldname}'; the form takes file, title, source and metadata`,
        );
      }
    }
  } catch (error) {
    throw formError(error);
  }
  if (file === undefined) throw new FormError(400, "file: is required (multipart field 'file')");
  return { file, fields };
}

function parseMetadata(text: string | undefined): JsonObject | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormError(400, "metadata: is not valid JSON; send a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FormError(400, "metadata: must be a JSON object");
  }
  return value as JsonObject;
}

/**
 * POST …/documents/upload → IngestService/UploadFile: the form is only translated; the type, the
 * text and every limit are core's (docs/ingest.md "Files"). 201 stored, 200 unchanged (identical
 * text under the same title), 202 queued (above 10,000 characters, indexed by the worker).
 */
export const documentUploadRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  await app.register(multipart, {
    limits: {
      fileSize: MAX_FILE_BYTES,
      files: 1,
      fields: TEXT_FIELDS.length,
      parts: TEXT_FIELDS.length + 1,
      fieldSize: MAX_FIELD_BYTES,
    },
  });
  app.withTypeProvider<ZodTypeProvider>().post(
    "/documents/upload",
    {
      // The parts are read by the handler; the schema documents the form (OpenAPI) only.
      validatorCompiler: () => () => true,
      schema: {
        ...describeOperation(options, {
          id: "uploadFile",
          summary: "Upload a file (PDF, DOCX, HTML, Markdown, text)",
          description:
            "multipart/form-data with the file in `file`, optional `title`, `source`, `metadata` (a JSON object). The type is " +
            "read from the bytes; PDF text layers (no OCR), DOCX and HTML main content become Markdown. Up to 10 MB. " +
            "201 stored, 200 unchanged, 202 queued (above 10,000 characters); 413 too large, 415 another type or an " +
            "unreadable file, 422 a PDF without text. The same title replaces the stored document.",
          tag: "documents",
          rpc: "memory.v1.IngestService/UploadFile",
        }),
        consumes: ["multipart/form-data"],
        body: uploadFormSchema,
        response: {
          200: uploadedFileSchema,
          201: uploadedFileSchema,
          202: uploadedFileSchema,
          ...errorResponses(options.auth, 402, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { file, fields } = await readForm(request);
      const metadata = parseMetadata(fields.metadata);
      const result = await options.clients.ingest.uploadFile(
        {
          data: file.data,
          filename: file.filename,
          contentType: file.mimetype,
          ...(fields.title === undefined || fields.title === "" ? {} : { title: fields.title }),
          ...(fields.source === undefined || fields.source === "" ? {} : { source: fields.source }),
          ...(metadata === undefined ? {} : { metadata }),
        },
        coreCall(request, options),
      );
      const memory = result.memory;
      const status = memory?.unchanged ? 200 : memory?.status === IndexStatus.QUEUED ? 202 : 201;
      return reply.code(status).send({
        ...storedMemoryBody(memory),
        fileType: result.fileType as z.infer<typeof uploadedFileSchema>["fileType"],
        ...(result.pages === undefined ? {} : { pages: result.pages }),
        characters: result.characters,
      });
    },
  );
};
