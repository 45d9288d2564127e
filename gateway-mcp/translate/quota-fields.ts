import { z } from "zod";
import type { Quota } from "../../gen/memory/v1/memory_pb.js";

/**
 * Spec "Stored-memory result" and "Statistics": quota info in success responses. The spec lists
 * these three in camelCase for MCP too ("Both are given exactly as listed"), so they stay so.
 */
export const quotaFieldsSchema = z.object({
  memoryLimit: z.number().int().nullable().describe("Memories the plan allows; null when unlimited."),
  memoriesUsed: z.number().int().describe("Memories stored in this workspace."),
  warnAt80: z.boolean().describe("True once 80 % of memoryLimit is used."),
});

export function quotaFields(quota: Quota | undefined): z.output<typeof quotaFieldsSchema> {
  return {
    memoryLimit: quota?.memoryLimit === undefined ? null : Number(quota.memoryLimit),
    memoriesUsed: Number(quota?.memoriesUsed ?? 0n),
    warnAt80: quota?.warnAt80 ?? false,
  };
}
