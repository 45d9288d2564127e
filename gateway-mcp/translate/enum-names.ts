import { IndexStatus, MemoryKind, MemoryType } from "../../gen/memory/v1/memory_pb.js";

/** Spec "Memory type": service_store_memory accepts these four, although the proto enum has six. */
export const MCP_MEMORY_TYPES = ["semantic", "episodic", "procedural", "reference"] as const;
export type McpMemoryType = (typeof MCP_MEMORY_TYPES)[number];

export const MEMORY_TYPE_BY_NAME: Readonly<Record<McpMemoryType, MemoryType>> = {
  semantic: MemoryType.SEMANTIC,
  episodic: MemoryType.EPISODIC,
  procedural: MemoryType.PROCEDURAL,
  reference: MemoryType.REFERENCE,
};

/** Lower-case spec words for proto enums ("indexed", "document"); "unspecified" never leaves core set. */
export const INDEX_STATUS_NAMES = ["queued", "indexed", "failed", "unspecified"] as const;
export function indexStatusName(status: IndexStatus): (typeof INDEX_STATUS_NAMES)[number] {
  switch (status) {
    case IndexStatus.QUEUED:
      return "queued";
    case IndexStatus.INDEXED:
      return "indexed";
    case IndexStatus.FAILED:
      return "failed";
    default:
      return "unspecified";
  }
}

export const MEMORY_KIND_NAMES = ["document", "entry", "unspecified"] as const;
export function memoryKindName(kind: MemoryKind): (typeof MEMORY_KIND_NAMES)[number] {
  switch (kind) {
    case MemoryKind.DOCUMENT:
      return "document";
    case MemoryKind.ENTRY:
      return "entry";
    default:
      return "unspecified";
  }
}
