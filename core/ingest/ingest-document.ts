import { create } from "@bufbuild/protobuf";
import {
  type IngestDocumentRequest,
  type IngestDocumentResponse,
  IngestDocumentResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { resolveTitle } from "./derive-title.js";
import { checkDocumentSize, requireContent } from "./ingest-limits.js";
import { indexStatus } from "./stored-memory-result.js";
import { type WriteNewMemoryDeps, writeNewMemory } from "./write-new-memory.js";

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
  const { title } = resolveTitle(request.title, request.content);
  const outcome = await writeNewMemory(deps, {
    caller,
    kind: "document",
    memoryType: "semantic",
    title,
    content: request.content,
    ...(request.source !== undefined ? { source: request.source } : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    upsertByTitle: true,
    dedupe: false,
    mode: "queued",
  });
  return create(IngestDocumentResponseSchema, {
    documentId: outcome.memoryId,
    status: indexStatus(outcome.status),
    quota: outcome.quota,
  });
}
