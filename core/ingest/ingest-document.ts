import { create } from "@bufbuild/protobuf";
import {
  type IngestDocumentRequest,
  type IngestDocumentResponse,
  IngestDocumentResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { checkDocumentSize, requireContent, type WriteNewMemoryDeps } from "../memories/index.js";
import { indexStatus } from "./stored-memory-result.js";
import { writeDocument } from "./write-document.js";

/**
 * REST POST /api/documents: always accepted as queued (spec: 202 {documentId, status: queued}) and
 * indexed by the worker, which then replaces same-title documents (upsert-by-title, the server's
 * default for documents). No identical-content shortcut: the answer's only status is queued.
 */
export async function ingestDocument(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: IngestDocumentRequest,
): Promise<IngestDocumentResponse> {
  requireContent(request.content);
  checkDocumentSize(request.content);
  const outcome = await writeDocument(deps, caller, request, { dedupe: false, mode: "queued" });
  return create(IngestDocumentResponseSchema, {
    documentId: outcome.memoryId,
    status: indexStatus(outcome.status),
    quota: outcome.quota,
  });
}
