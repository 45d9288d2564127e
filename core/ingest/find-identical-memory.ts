import { contentSha256 } from "../memories/content-hash.js";
import type { MemoryKindName, MemoryStatusName } from "../memories/insert-memory-row.js";
import type { TransactionSql } from "../store/database.js";

// Any constant: the first key of the advisory lock per (tenant, kind, title).
const TITLE_LOCK_CLASS = 0x7117e;

/**
 * Serialises writers of one title in one tenant until commit, so two identical concurrent calls
 * cannot both miss each other (spec behaviour rule 1: nothing written twice). Take it before the
 * quota lock, always in this order.
 */
export async function lockTitle(
  tx: TransactionSql,
  tenantId: string,
  kind: MemoryKindName,
  title: string,
): Promise<void> {
  await tx`select pg_advisory_xact_lock(${TITLE_LOCK_CLASS}, hashtext(${`${tenantId}:${kind}:${title}`}))`;
}

export interface IdenticalMemory {
  readonly memoryId: string;
  readonly status: MemoryStatusName;
  readonly chunksWritten: number;
  readonly embeddingSpace: string | null;
}

/**
 * A current version of the same kind and title with byte-identical content that did not fail (a failed
 * one is retried by writing again). Newest first when there are several.
 */
export async function findIdenticalMemory(
  tx: TransactionSql,
  tenantId: string,
  kind: MemoryKindName,
  title: string,
  content: string,
): Promise<IdenticalMemory | undefined> {
  const [row] = await tx<
    { id: string; status: MemoryStatusName; chunks_written: number; embedding_space: string | null }[]
  >`
    select id, status, chunks_written, embedding_space from memories
    where tenant_id = ${tenantId} and content_sha256 = ${contentSha256(content)} and kind = ${kind}
      and title = ${title} and valid_to is null and status <> 'failed'
    order by recorded_at desc limit 1`;
  return row
    ? {
        memoryId: row.id,
        status: row.status,
        chunksWritten: row.chunks_written,
        embeddingSpace: row.embedding_space,
      }
    : undefined;
}
