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

/** Inserts one memory version (one row per version, DESIGN "Storage"). */
export async function insertMemoryRow(
  tx: TransactionSql,
  input: MemoryRowInput,
  state: {
    status: MemoryStatusName;
    chunksWritten: number;
    embeddingSpace: string | null;
    statusDetail?: string;
  },
): Promise<InsertedMemoryRow> {
  const [row] = await tx<{ id: string; lineage_id: string; valid_from: Date }[]>`
    insert into memories (tenant_id, lineage_id, kind, memory_type, title, content, content_sha256, source,
                          tags, metadata, status, status_detail, chunks_written, embedding_space, update_reason,
                          valid_from, upsert_by_title)
    values (${input.tenantId}, coalesce(${input.lineageId ?? null}::uuid, gen_random_uuid()), ${input.kind},
            ${input.memoryType}, ${input.title}, ${input.content}, ${contentSha256(input.content)},
            ${input.source ?? null}, ${tx.array([...(input.tags ?? [])])}::text[],
            ${tx.json(input.metadata ?? {})}, ${state.status}, ${state.statusDetail ?? null},
            ${state.chunksWritten}, ${state.embeddingSpace}, ${input.updateReason ?? null},
            coalesce(${input.validFrom ?? null}::timestamptz, now()), ${input.upsertByTitle ?? false})
    returning id, lineage_id, valid_from`;
  if (!row) throw new Error("insert into memories returned no row");
  return { memoryId: row.id, lineageId: row.lineage_id, validFrom: row.valid_from };
}
