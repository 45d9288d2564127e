import { IndexStatus, MemoryKind, MemoryType } from "../../gen/memory/v1/memory_pb.js";

/** Database names → proto enums for the hits and recent items this service returns. */

const MEMORY_TYPES: Readonly<Record<string, MemoryType>> = {
  semantic: MemoryType.SEMANTIC,
  episodic: MemoryType.EPISODIC,
  procedural: MemoryType.PROCEDURAL,
  reference: MemoryType.REFERENCE,
  working: MemoryType.WORKING,
  entity: MemoryType.ENTITY,
};

const KINDS: Readonly<Record<string, MemoryKind>> = {
  document: MemoryKind.DOCUMENT,
  entry: MemoryKind.ENTRY,
};

const STATUSES: Readonly<Record<string, IndexStatus>> = {
  queued: IndexStatus.QUEUED,
  indexed: IndexStatus.INDEXED,
  failed: IndexStatus.FAILED,
};

export const memoryTypeEnum = (name: string): MemoryType => MEMORY_TYPES[name] ?? MemoryType.UNSPECIFIED;
export const memoryKindEnum = (name: string): MemoryKind => KINDS[name] ?? MemoryKind.UNSPECIFIED;
export const indexStatusEnum = (name: string): IndexStatus => STATUSES[name] ?? IndexStatus.UNSPECIFIED;
