import type { JsonObject } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import {
  type UploadFileRequest,
  type UploadFileResponse,
  UploadFileResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { invalidArgument, noText, tooLarge, unsupportedMediaType } from "../errors.js";
import { checkDocumentSize, type WriteNewMemoryDeps } from "../memories/index.js";
import { extractFile } from "./extract/extract-file.js";
import { type ExtractedText, ExtractionFailure, SUPPORTED_TYPES } from "./extract/file-types.js";
import { storedMemoryResult } from "./stored-memory-result.js";
import { writeDocument } from "./write-document.js";

/** The metadata key the upload records the file in (docs/ingest.md "Files"); callers may not set it. */
export const FILE_METADATA_KEY = "file";

function toCoreError(error: unknown): unknown {
  if (!(error instanceof ExtractionFailure)) return error;
  switch (error.kind) {
    case "unsupported":
      return unsupportedMediaType(
        error.message.includes(SUPPORTED_TYPES)
          ? error.message
          : `${error.message}; supported: ${SUPPORTED_TYPES}`,
      );
    case "no_text":
      return noText(error.message);
    case "too_large":
      return tooLarge("data", "its limit", error.message);
  }
}

async function extract(request: UploadFileRequest): Promise<ExtractedText> {
  try {
    return await extractFile(request.data, { filename: request.filename, contentType: request.contentType });
  } catch (error) {
    throw toCoreError(error);
  }
}

/**
 * IngestService/UploadFile (REST POST /api/v1/documents/upload, the dashboard's explorer): the file's
 * text is extracted (extract/, bounded in time and memory) before anything is written, then stored
 * as service_upload_document stores content — upsert by title (default: the file name), identical
 * content unchanged, queued above 10,000 characters; quota, plan gate and memory.created as for any
 * document. A PDF's page starts go into metadata.file.pageStarts, from which recall names a hit's pages.
 */
export async function uploadFile(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: UploadFileRequest,
): Promise<UploadFileResponse> {
  if (request.metadata !== undefined && FILE_METADATA_KEY in request.metadata) {
    throw invalidArgument(
      "metadata",
      `metadata.${FILE_METADATA_KEY} is reserved: the upload records the file there`,
    );
  }
  const extracted = await extract(request);
  if (!/\S/u.test(extracted.text)) {
    throw noText(
      `no text could be extracted from the ${extracted.type === "text" ? "file" : extracted.type.toUpperCase()}`,
    );
  }
  checkDocumentSize(extracted.text);
  const pages = extracted.pageStarts?.length;
  const file: JsonObject = {
    name: request.filename,
    type: extracted.type,
    bytes: request.data.length,
    ...(pages === undefined ? {} : { pages, pageStarts: [...(extracted.pageStarts ?? [])] }),
  };
  const title = request.title ?? (request.filename.trim() || undefined);
  const outcome = await writeDocument(
    deps,
    caller,
    {
      content: extracted.text,
      title,
      source: request.source,
      metadata: { ...(request.metadata ?? {}), [FILE_METADATA_KEY]: file },
    },
    { dedupe: true, mode: "auto" },
  );
  return create(UploadFileResponseSchema, {
    memory: storedMemoryResult({ ...outcome, embeddingProvider: deps.embedder.id }),
    fileType: extracted.type,
    ...(pages === undefined ? {} : { pages }),
    characters: extracted.text.length,
  });
}
