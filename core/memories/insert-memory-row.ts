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
 * Sends the insert of memory versions of one tenant (one row per version, DESIGN "Storage") in one
 * statement, without waiting for it: the ids are chosen here, so the statements that name the rows
 * (chunks, outbox) go out in the same round trip behind it and run after it, in order, on the
 * transaction's connection.
 */
export function sendMemoryRows(
  tx: TransactionSql,
  rows: readonly { readonly input: MemoryRowInput; readonly state: MemoryRowState }[],
): SentMemoryRow[] {
  const ids = rows.map(({ input }) => ({
    memoryId: randomUUID(),
    lineageId: input.lineageId ?? randomUUID(),
  }));
  const records = rows.map(({ input, state }, i) => ({
    id: ids[i]?.memoryId,
    tenant_id: input.tenantId,
    lineage_id: ids[i]?.lineageId,
    kind: input.kind,
    memory_type: input.memoryType,
    title: input.title,
    content: input.content,
    content_sha256: contentSha256(input.content).toString("hex"),
    source: input.source ?? null,
    tags: [...(input.tags ?? [])],
    metadata: input.metadata ?? {},
    status: state.status,
    status_detail: state.statusDetail ?? null,
    chunks_written: state.chunksWritten,
    embedding_space: state.embeddingSpace,
    update_reason: input.updateReason ?? null,
    valid_from: input.validFrom?.toISOString() ?? null,
    upsert_by_title: input.upsertByTitle ?? false,
  }));
  const inserted = tx<{ id: string; valid_from: Date }[]>`
    insert into memories (id, tenant_id, lineage_id, kind, memory_type, title, content, content_sha256, source,
                          tags, metadata, status, status_detail, chunks_written, embedding_space, update_reason,
                          valid_from, upsert_by_title)
    select r.id, r.tenant_id, r.lineage_id, r.kind, r.memory_type, r.title, r.content,
           decode(r.content_sha256, 'hex'), r.source,
           array(select jsonb_array_elements_text(r.tags)), r.metadata, r.status, r.status_detail,
           r.chunks_written, r.embedding_space, r.update_reason, coalesce(r.valid_from, now()),
           r.upsert_by_title
    from jsonb_to_recordset(${tx.json(records)}) as r(
      id uuid, tenant_id uuid, lineage_id uuid, kind text, memory_type text, title text, content text,
      content_sha256 text, source text, tags jsonb, metadata jsonb, status text, status_detail text,
      chunks_written int, embedding_space text, update_reason text, valid_from timestamptz,
      upsert_by_title boolean)
    returning id, valid_from`.then((answer) => new Map(answer.map((row) => [row.id, row.valid_from])));
  return ids.map(({ memoryId, lineageId }) => ({
    memoryId,
    lineageId,
    validFrom: inserted.then((validFroms) => {
      const validFrom = validFroms.get(memoryId);
      if (!validFrom) throw new Error("insert into memories returned no row");
      return validFrom;
    }),
  }));
}

/** sendMemoryRows for one version. */
export function sendMemoryRow(
  tx: TransactionSql,
  input: MemoryRowInput,
  state: MemoryRowState,
): SentMemoryRow {
  const [row] = sendMemoryRows(tx, [{ input, state }]);
  if (!row) throw new Error("sendMemoryRows returned no row");
  return row;
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
