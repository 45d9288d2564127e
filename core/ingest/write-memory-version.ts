import type { JsonObject } from "@bufbuild/protobuf";
import type { TransactionSql } from "../store/database.js";
import { contentSha256 } from "./content-hash.js";
import { insertChunks } from "./insert-chunks.js";
import { insertOutboxEvent, type MemoryEvent } from "./insert-outbox-event.js";
import type { MemoryTypeName } from "./memory-type.js";
import type { PreparedContent } from "./prepare-memory-content.js";

export type MemoryKindName = "document" | "entry";

export interface MemoryVersionInput {
  readonly tenantId: string;
  /** The lineage this version continues (update_fact, upsert-by-title); a new one when unset. */
  readonly lineageId?: string;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
  readonly title: string;
  readonly content: string;
  readonly source?: string;
  readonly tags?: readonly string[];
  readonly metadata?: JsonObject;
  readonly updateReason?: string;
  /** Valid-time start; the transaction's now() when unset. */
  readonly validFrom?: Date;
  readonly prepared: PreparedContent;
  /** The outbox event to write with the version; none when unset. */
  readonly event?: MemoryEvent;
  /** Merged into the event's data (e.g. the replaced version for memory.updated). */
  readonly extraEventData?: JsonObject;
}

export interface WrittenVersion {
  readonly tenantId: string;
  readonly memoryId: string;
  readonly lineageId: string;
  readonly validFrom: Date;
  /** Chunk ids in ordinal order, matching `prepared.chunks`. */
  readonly chunkIds: readonly string[];
}

/**
 * Inserts one memory version with status queued, its chunks and (optionally) its outbox event, in the
 * caller's tenant transaction — PostgreSQL first (DESIGN "Ingest"); vectors follow after the commit
 * (finishIndexing). Does not check quotas or close other versions: the use case does that.
 */
export async function writeMemoryVersion(
  tx: TransactionSql,
  input: MemoryVersionInput,
): Promise<WrittenVersion> {
  const [row] = await tx<{ id: string; lineage_id: string; valid_from: Date }[]>`
    insert into memories (tenant_id, lineage_id, kind, memory_type, title, content, content_sha256, source,
                          tags, metadata, status, chunks_written, embedding_space, update_reason, valid_from)
    values (${input.tenantId}, coalesce(${input.lineageId ?? null}::uuid, gen_random_uuid()), ${input.kind},
            ${input.memoryType}, ${input.title}, ${input.content}, ${contentSha256(input.content)},
            ${input.source ?? null}, ${tx.array([...(input.tags ?? [])])}::text[],
            ${tx.json(input.metadata ?? {})}, 'queued', ${input.prepared.chunks.length},
            ${input.prepared.space}, ${input.updateReason ?? null}, coalesce(${input.validFrom ?? null}::timestamptz, now()))
    returning id, lineage_id, valid_from`;
  if (!row) throw new Error("insert into memories returned no row");
  const chunkIds = await insertChunks(
    tx,
    { tenantId: input.tenantId, memoryId: row.id, validFrom: row.valid_from, validTo: null },
    input.prepared.chunks,
  );
  if (input.event) {
    await insertOutboxEvent(tx, input.tenantId, input.event, {
      documentId: row.id,
      title: input.title,
      chunksWritten: chunkIds.length,
      ...input.extraEventData,
    });
  }
  return {
    tenantId: input.tenantId,
    memoryId: row.id,
    lineageId: row.lineage_id,
    validFrom: row.valid_from,
    chunkIds,
  };
}
