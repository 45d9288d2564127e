import type { JsonObject } from "@bufbuild/protobuf";
import type { TransactionSql } from "../store/database.js";
import { insertVersionsChunks } from "./insert-chunks.js";
import { type MemoryRowInput, type SentMemoryRow, sendMemoryRows } from "./insert-memory-row.js";
import { insertOutboxEvents, type MemoryEvent } from "./insert-outbox-event.js";
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
  const [written] = await writeMemoryVersions(tx, [input]);
  if (!written) throw new Error("writeMemoryVersions returned no version");
  return written;
}

/**
 * writeMemoryVersion for several versions of one tenant at once (a batch of concurrent writes): one
 * round trip for all of it — each statement is sent before the previous one answered, and the
 * connection runs them in order — and one chunk statement for every version's chunks. With
 * `vectorsStored` the rows are written indexed and their chunks vector_stored: for a caller that
 * stores the vectors before its transaction commits.
 */
export async function writeMemoryVersions(
  tx: TransactionSql,
  inputs: readonly MemoryVersionInput[],
  options: { readonly vectorsStored?: boolean } = {},
): Promise<WrittenVersion[]> {
  // A batch whose members were all identical or over the limit writes nothing.
  if (inputs.length === 0) return [];
  const rows = sendMemoryRows(
    tx,
    inputs.map((input) => ({
      input,
      state: {
        status: options.vectorsStored === true ? "indexed" : "queued",
        chunksWritten: input.prepared.chunks.length,
        embeddingSpace: input.prepared.space,
      },
    })),
  );
  const chunkIds = insertVersionsChunks(
    tx,
    inputs.map((input, i) => ({
      owner: {
        tenantId: input.tenantId,
        memoryId: (rows[i] as SentMemoryRow).memoryId,
        validFrom: input.validFrom,
        validTo: null,
      },
      chunks: input.prepared.chunks,
    })),
    { vectorStored: options.vectorsStored === true },
  );
  const tenantId = inputs[0]?.tenantId ?? "";
  const events = insertOutboxEvents(
    tx,
    tenantId,
    inputs.flatMap((input, i) =>
      input.event
        ? [
            {
              event: input.event,
              payload: {
                documentId: (rows[i] as SentMemoryRow).memoryId,
                title: input.title,
                chunksWritten: input.prepared.chunks.length,
                ...input.extraEventData,
              },
            },
          ]
        : [],
    ),
  );
  const [validFroms, ids] = await Promise.all([
    Promise.all(rows.map((row) => row.validFrom)),
    chunkIds,
    events,
  ]);
  return inputs.map((input, i) => {
    const row = rows[i] as SentMemoryRow;
    return {
      tenantId: input.tenantId,
      memoryId: row.memoryId,
      lineageId: row.lineageId,
      validFrom: validFroms[i] as Date,
      chunkIds: ids[i] ?? [],
    };
  });
}
