import { z } from "zod";
import { IndexStatusSchema, type Quota, type StoredMemory } from "../gen/memory/v1/memory_pb.js";
import { enumWord, enumWords } from "../lib/proto-enum-words.js";

/** Spec "Stored-memory result" in REST camelCase, with its quota info. */
export const storedMemorySchema = z
  .object({
    memoryId: z.string(),
    id: z.string().describe("Same value as memoryId"),
    title: z.string(),
    status: z.enum(enumWords(IndexStatusSchema)),
    chunksWritten: z.int(),
    embeddingProvider: z.string(),
    unchanged: z
      .boolean()
      .optional()
      .describe("Present when the content was byte-identical to a stored memory"),
    ...quotaShape(),
  })
  .meta({ id: "StoredMemory" });

function quotaShape() {
  return {
    memoryLimit: z.int().nullable().describe("null when the plan has no memory limit"),
    memoriesUsed: z.int(),
    warnAt80: z.boolean(),
    hint: z.string().describe("Plain-text quota hint"),
  };
}

export function quotaFields(quota: Quota | undefined) {
  return {
    memoryLimit: quota?.memoryLimit === undefined ? null : Number(quota.memoryLimit),
    memoriesUsed: Number(quota?.memoriesUsed ?? 0n),
    warnAt80: quota?.warnAt80 ?? false,
    hint: quota?.hint ?? "",
  };
}

export function storedMemoryBody(memory: StoredMemory | undefined) {
  return {
    memoryId: memory?.memoryId ?? "",
    id: memory?.memoryId ?? "",
    title: memory?.title ?? "",
    status: enumWord(IndexStatusSchema, memory?.status ?? 0),
    chunksWritten: memory?.chunksWritten ?? 0,
    embeddingProvider: memory?.embeddingProvider ?? "",
    ...(memory?.unchanged === undefined ? {} : { unchanged: memory.unchanged }),
    ...quotaFields(memory?.quota),
  };
}
