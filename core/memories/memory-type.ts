import { MemoryType } from "../../gen/memory/v1/memory_pb.js";

/** The `memories.memory_type` values (spec "Memory type": REST's six, of which MCP accepts four). */
export type MemoryTypeName = "semantic" | "episodic" | "procedural" | "reference" | "working" | "entity";

const NAMES: Readonly<Record<MemoryType, MemoryTypeName>> = {
  [MemoryType.UNSPECIFIED]: "semantic",
  [MemoryType.SEMANTIC]: "semantic",
  [MemoryType.EPISODIC]: "episodic",
  [MemoryType.PROCEDURAL]: "procedural",
  [MemoryType.REFERENCE]: "reference",
  [MemoryType.WORKING]: "working",
  [MemoryType.ENTITY]: "entity",
};

/**
 * Core accepts the union of both lists; each gateway restricts its own interface (MCP store tool: the
 * first four; REST /memory/entries: all six with 422). Unset means semantic (spec default).
 */
export function memoryTypeName(type: MemoryType): MemoryTypeName {
  return NAMES[type] ?? "semantic";
}
