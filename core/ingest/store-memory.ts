import { create } from "@bufbuild/protobuf";
import {
  type StoreMemoryRequest,
  type StoreMemoryResponse,
  StoreMemoryResponseSchema,
} from "../../gen/memory/v1/ingest_service_pb.js";
import type { StoredMemory } from "../../gen/memory/v1/memory_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import {
  checkMemorySize,
  memoryTypeName,
  requireContent,
  type WriteNewMemoryDeps,
  writeNewMemory,
} from "../memories/index.js";
import { resolveTitle } from "./derive-title.js";
import { storedMemoryResult } from "./stored-memory-result.js";

/**
 * service_store_memory and REST memory entries (spec behaviour rules 1 and 2): append-only — a title
 * that exists gets a second memory, unless the content is byte-identical, which returns the existing
 * one with unchanged = true. Indexed inline up to 10,000 characters, by the worker above.
 */
export async function storeMemory(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: StoreMemoryRequest,
): Promise<StoreMemoryResponse> {
  return create(StoreMemoryResponseSchema, { memory: await storeEntry(deps, caller, request) });
}

/** storeMemory's stored-memory result: also one entry of StoreMemories. */
export async function storeEntry(
  deps: WriteNewMemoryDeps,
  caller: TenantCaller,
  request: StoreMemoryRequest,
): Promise<StoredMemory> {
  requireContent(request.content);
  checkMemorySize(request.content);
  const { title } = resolveTitle(request.title, request.content);
  const outcome = await writeNewMemory(deps, {
    caller,
    kind: "entry",
    memoryType: memoryTypeName(request.memoryType),
    title,
    content: request.content,
    ...(request.source !== undefined ? { source: request.source } : {}),
    tags: request.tags,
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    upsertByTitle: false,
    dedupe: true,
    mode: "auto",
  });
  return storedMemoryResult({ ...outcome, title, embeddingProvider: deps.embedder.id });
}
