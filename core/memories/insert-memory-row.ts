import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { TransactionSql } from "../store/database.js";
import { contentSha256 } from "./content-hash.js";
import type { MemoryTypeName } from "./memory-type.js";

export type MemoryKindName = "document" | "entry";
export type MemoryStatusName = "queued" | "indexed" | "failed";

export interface MemoryRowInput {
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
  /** Replace same-title documents once indexed (upload_document, POST /api/documents). */
  readonly upsertByTitle?: boolean;
}

export interface InsertedMemoryRow {
  readonly memoryId: string;
  readonly lineageId: string;
  readonly validFrom: Date;
}

export interface MemoryRowState {
  readonly status: MemoryStatusName;
  readonly chunksWritten: number;
  readonly embeddingSpace: string | null;
  readonly statusDetail?: string;
}

/** A memory row on its way: its ids are known at once, its valid_from once PostgreSQL answered. */
export interface SentMemoryRow {
  readonly memoryId: string;
  readonly lineageId: string;
  readonly validFrom: Promise<Date>;
}

/**
 * Sends the insert of one memory version (one row per version, DESIGN "Storage") without waiting for
 * it: the ids are chosen here, so the statements that name the row (chunks, outbox) go out in the same
 * round trip behind it and run after it, in order, on the transaction's connection.
 */
export function sendMemoryRow(
  tx: TransactionSql,
  input: MemoryRowInput,
  state: MemoryRowState,
): SentMemoryRow {
  const memoryId = randomUUID();
  const lineageId = input.lineageId ?? randomUUID();
  const validFrom = tx<{ valid_from: Date }[]>`
    insert into memories (id, tenant_id, lineage_id, kind, memory_type, title, content, content_sha256, source,
                          tags, metadata, status, status_detail, chunks_written, embedding_space, update_reason,
                          valid_from, upsert_by_title)
    values (${memoryId}, ${input.tenantId}, ${lineageId}, ${input.kind},
            ${input.memoryType}, ${input.title}, ${input.content}, ${contentSha256(input.content)},
            ${input.source ?? null}, ${tx.array([...(input.tags ?? [])])}::text[],
            ${tx.json(input.metadata ?? {})}, ${state.status}, ${state.statusDetail ?? null},
            ${state.chunksWritten}, ${state.embeddingSpace}, ${input.updateReason ?? null},
            coalesce(${input.validFrom ?? null}::timestamptz, now()), ${input.upsertByTitle ?? false})
    returning valid_from`.then(([row]) => {
    if (!row) throw new Error("insert into memories returned no row");
    return row.valid_from;
  });
  return { memoryId, lineageId, validFrom };
}

/** Inserts one memory version and waits for it. */
export async function insertMemoryRow(
  tx: TransactionSql,
  input: MemoryRowInput,
  state: MemoryRowState,
): Promise<InsertedMemoryRow> {
  const row = sendMemoryRow(tx, input, state);
  return { memoryId: row.memoryId, lineageId: row.lineageId, validFrom: await row.validFrom };
}
