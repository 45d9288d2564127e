import {
  IndexStatusSchema,
  MemoryKindSchema,
  type MemoryType,
  MemoryTypeSchema,
} from "../../gen/memory/v1/memory_pb.js";
import { enumValue, enumWord, enumWords } from "../../lib/proto-enum-words.js";

/** Spec "Memory type": service_store_memory accepts these four, although the proto enum has six. */
export const MCP_MEMORY_TYPES = ["semantic", "episodic", "procedural", "reference"] as const;
export type McpMemoryType = (typeof MCP_MEMORY_TYPES)[number];

export const memoryTypeValue = (word: McpMemoryType): MemoryType | 0 => enumValue(MemoryTypeSchema, word);

/** Output-schema words: the proto's, plus "unspecified", which core never sets on a stored memory. */
export const INDEX_STATUS_NAMES = [...enumWords(IndexStatusSchema), "unspecified"] as const;
export const indexStatusName = (status: number): string => enumWord(IndexStatusSchema, status);

export const MEMORY_KIND_NAMES = [...enumWords(MemoryKindSchema), "unspecified"] as const;
export const memoryKindName = (kind: number): string => enumWord(MemoryKindSchema, kind);
