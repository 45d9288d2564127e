import { contentRequired, tooLarge } from "../errors.js";

/** Spec "Quotas and sizes": store_memory 100 KB. */
export const MAX_MEMORY_BYTES = 100 * 1024;
/** Spec "Quotas and sizes": MCP content over 1,000,000 characters yields too_large. */
export const MAX_UPLOAD_CHARACTERS = 1_000_000;
/** Spec "Quotas and sizes": document upload 10 MB. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** Spec "Asynchronous indexing": documents above 10,000 characters are indexed by the worker. */
export const ASYNC_THRESHOLD_CHARACTERS = 10_000;

/** Empty or whitespace-only content has nothing to index (spec: content_required). */
export function requireContent(content: string): void {
  if (!/\S/u.test(content)) throw contentRequired("content");
}

export function checkMemorySize(content: string): void {
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_MEMORY_BYTES) {
    throw tooLarge(
      "content",
      "100 KB",
      `a memory holds at most ${MAX_MEMORY_BYTES} bytes (got ${bytes}); split the content into several memories or upload it as a document`,
    );
  }
}

export function checkUploadSize(content: string): void {
  if (content.length > MAX_UPLOAD_CHARACTERS) {
    throw tooLarge(
      "content",
      "1,000,000 characters",
      `got ${content.length} characters; split the document and upload it in several calls`,
    );
  }
}

export function checkDocumentSize(content: string): void {
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_DOCUMENT_BYTES) {
    throw tooLarge(
      "content",
      "10 MB",
      `got ${bytes} bytes; split the document and ingest it in several calls`,
    );
  }
}
