import { z } from "zod";
import type { StoredMemory } from "../../gen/memory/v1/memory_pb.js";
import { INDEX_STATUS_NAMES, indexStatusName } from "./enum-names.js";
import { quotaFields, quotaFieldsSchema } from "./quota-fields.js";

/** Spec "Stored-memory result" (service_store_memory; upload_document adds replaced_document_ids). */
export const storedMemorySchema = z
  .object({
    memory_id: z.string().describe("Id of the stored memory; use it for link, update_fact, list_relations."),
    id: z.string().describe("Same value as memory_id."),
    title: z.string(),
    status: z
      .enum(INDEX_STATUS_NAMES)
      .describe("indexed: searchable now; queued: indexed in the background."),
    chunks_written: z.number().int(),
    embedding_provider: z.string(),
    unchanged: z
      .boolean()
      .optional()
      .describe(
        "Present when the content was byte-identical to an existing memory: nothing new was written.",
      ),
  })
  .extend(quotaFieldsSchema.shape);

export const uploadedDocumentSchema = storedMemorySchema.extend({
  replaced_document_ids: z
    .array(z.string())
    .describe("Ids of earlier documents with the same title, replaced by this one (upsert by title)."),
});

export function storedMemoryResult(memory: StoredMemory | undefined): z.output<typeof storedMemorySchema> {
  if (memory === undefined) throw new Error("core answered a write without the stored memory");
  return {
    memory_id: memory.memoryId,
    id: memory.memoryId,
    title: memory.title,
    status: indexStatusName(memory.status),
    chunks_written: memory.chunksWritten,
    embedding_provider: memory.embeddingProvider,
    ...(memory.unchanged !== undefined ? { unchanged: memory.unchanged } : {}),
    ...quotaFields(memory.quota),
  };
}
