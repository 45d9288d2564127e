import type { JsonObject } from "@bufbuild/protobuf";
import type { TenantCaller } from "../auth/caller.js";
import { type NewMemoryOutcome, type WriteNewMemoryDeps, writeNewMemory } from "../memories/index.js";
import { resolveTitle } from "./derive-title.js";

/** The fields both document routes share (REST POST /api/documents, MCP service_upload_document). */
export interface DocumentInput {
  readonly content: string;
  readonly title?: string | undefined;
  readonly source?: string | undefined;
  readonly metadata?: JsonObject | undefined;
}

/**
 * A document is a semantic memory written upsert-by-title; the routes differ only in whether identical
 * content short-cuts (`dedupe`) and whether small documents are indexed inline (`mode`).
 * Content presence and size are checked by the caller (the routes' limits differ).
 */
export async function writeDocument(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  input: DocumentInput,
  policy: { readonly dedupe: boolean; readonly mode: "auto" | "queued" },
): Promise<NewMemoryOutcome & { readonly title: string }> {
  const { title } = resolveTitle(input.title, input.content);
  const outcome = await writeNewMemory(deps, {
    caller,
    kind: "document",
    memoryType: "semantic",
    title,
    content: input.content,
    ...(input.source !== undefined ? { source: input.source } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    upsertByTitle: true,
    ...policy,
  });
  return { ...outcome, title };
}
