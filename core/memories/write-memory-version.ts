import type { JsonObject } from "@bufbuild/protobuf";
import type { TransactionSql } from "../store/database.js";
import { insertChunks } from "./insert-chunks.js";
import { insertMemoryRow, type MemoryRowInput } from "./insert-memory-row.js";
import { insertOutboxEvent, type MemoryEvent } from "./insert-outbox-event.js";
import type { PreparedContent } from "./prepare-memory-content.js";

export type { MemoryKindName } from "./insert-memory-row.js";

export interface MemoryVersionInput extends MemoryRowInput {
  /** The chunks and their space; the vectors are not needed here (a PreparedContent will do). */
  readonly prepared: Pick<PreparedContent, "chunks" | "space">;
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
  const row = await insertMemoryRow(tx, input, {
    status: "queued",
    chunksWritten: input.prepared.chunks.length,
    embeddingSpace: input.prepared.space,
  });
  const chunkIds = await insertChunks(
    tx,
    { tenantId: input.tenantId, memoryId: row.memoryId, validFrom: row.validFrom, validTo: null },
    input.prepared.chunks,
  );
  if (input.event) {
    await insertOutboxEvent(tx, input.tenantId, input.event, {
      documentId: row.memoryId,
      title: input.title,
      chunksWritten: chunkIds.length,
      ...input.extraEventData,
    });
  }
  return { tenantId: input.tenantId, ...row, chunkIds };
}
