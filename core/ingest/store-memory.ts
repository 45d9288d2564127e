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
  type NewMemory,
  type NewMemoryOutcome,
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
  const entry = newEntry(caller, request);
  return entryResult(deps, entry, await writeNewMemory(deps, entry));
}

/** The new memory a StoreMemory request asks for, its content checked (present, within the size). */
export function newEntry(caller: TenantCaller, request: StoreMemoryRequest): NewMemory {
  requireContent(request.content);
  checkMemorySize(request.content);
  const { title } = resolveTitle(request.title, request.content);
  return {
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
  };
}

/** The stored-memory result of a written entry. */
export function entryResult(
  deps: WriteNewMemoryDeps,
  entry: NewMemory,
  outcome: NewMemoryOutcome,
): StoredMemory {
  return storedMemoryResult({ ...outcome, title: entry.title, embeddingProvider: deps.embedder.id });
}
