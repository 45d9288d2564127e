import { create } from "@bufbuild/protobuf";
import {
  IndexStatus,
  type Quota,
  type StoredMemory,
  StoredMemorySchema,
} from "../../gen/memory/v1/memory_pb.js";
import type { MemoryStatusName } from "../memories/index.js";

const STATUS: Readonly<Record<MemoryStatusName, IndexStatus>> = {
  queued: IndexStatus.QUEUED,
  indexed: IndexStatus.INDEXED,
  failed: IndexStatus.FAILED,
};

export function indexStatus(status: MemoryStatusName): IndexStatus {
  return STATUS[status];
}

/** The stored-memory result (spec "Stored-memory result"). */
export function storedMemoryResult(fields: {
  memoryId: string;
  title: string;
  status: MemoryStatusName;
  chunksWritten: number;
  embeddingProvider: string;
  quota: Quota;
  replacedDocumentIds?: readonly string[];
  unchanged?: boolean;
}): StoredMemory {
  return create(StoredMemorySchema, {
    memoryId: fields.memoryId,
    title: fields.title,
    status: indexStatus(fields.status),
    chunksWritten: fields.chunksWritten,
    embeddingProvider: fields.embeddingProvider,
    replacedDocumentIds: [...(fields.replacedDocumentIds ?? [])],
    ...(fields.unchanged ? { unchanged: true } : {}),
    quota: fields.quota,
  });
}
