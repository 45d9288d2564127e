import { create } from "@bufbuild/protobuf";
import {
  type UploadDocumentRequest,
  type UploadDocumentResponse,
  UploadDocumentResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { checkUploadSize, requireContent, type WriteNewMemoryDeps } from "../memories/index.js";
import { storedMemoryResult } from "./stored-memory-result.js";
import { writeDocument } from "./write-document.js";

/**
 * service_upload_document (spec behaviour rule 3): upsert-by-title — the current documents with the
 * same title are replaced only after the new one is indexed, and listed in replaced_document_ids.
 * Byte-identical content returns the current document with unchanged = true. Above 10,000 characters
 * the answer is queued and the worker replaces the old document when it has indexed the new one (the
 * ids are then not known to this answer).
 */
export async function uploadDocument(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: UploadDocumentRequest,
): Promise<UploadDocumentResponse> {
  requireContent(request.content);
  checkUploadSize(request.content);
  const outcome = await writeDocument(deps, caller, request, { dedupe: true, mode: "auto" });
  return create(UploadDocumentResponseSchema, {
    memory: storedMemoryResult({ ...outcome, embeddingProvider: deps.embedder.id }),
  });
}
