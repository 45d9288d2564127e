import type { TransactionSql } from "../store/database.js";
import type { MemoryRow } from "./tenant-export-records.js";

/** Content read per query: bounds what an export holds in memory, whatever the memories' sizes. */
export const BATCH_CONTENT_BYTES = 1024 * 1024;

/** Keys (id and content size, a few dozen bytes each) fetched per round trip. */
const KEYS_PER_FETCH = 1000;

interface MemoryKey {
  readonly id: string;
  readonly size: number;
}

/**
 * Consecutive groups of keys whose content adds up to at most `budget` bytes; a single larger
 * memory (documents reach 10 MB) is a group of its own.
 */
export function groupBySize(keys: readonly MemoryKey[], budget: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const key of keys) {
    if (group.length > 0 && size + key.size > budget) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(key.id);
    size += key.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * Every version of every memory of the tenant, oldest first (created_at, id), in batches of about
 * BATCH_CONTENT_BYTES. A fixed number of rows per batch would not bound memory: a row is anything
 * from a 20-byte note to a 10 MB document. So a server-side cursor walks the keys with their sizes
 * (octet_length reads the TOAST header, not the content), and the contents are read per group.
 * Run inside one REPEATABLE READ transaction, the two reads see the same snapshot.
 */
export async function* readMemoriesInBatches(
  tx: TransactionSql,
  tenantId: string,
): AsyncGenerator<MemoryRow[]> {
  await tx`
    declare export_memory_keys no scroll cursor for
    select id, octet_length(content) as size
    from memories
    where tenant_id = ${tenantId}
    order by created_at, id`;
  for (;;) {
    // FETCH takes no bind parameters; the count is our constant.
    const keys = await tx.unsafe<MemoryKey[]>(`fetch forward ${KEYS_PER_FETCH} from export_memory_keys`);
    if (keys.length === 0) break;
    for (const ids of groupBySize(keys, BATCH_CONTENT_BYTES)) {
      yield await tx<MemoryRow[]>`
        select id, lineage_id, kind, memory_type, title, content, source, tags, metadata, status,
               status_detail, update_reason, valid_from, valid_to, recorded_at, created_at, updated_at
        from memories
        where tenant_id = ${tenantId} and id = any(${ids}::uuid[])
        order by created_at, id`;
    }
  }
  await tx`close export_memory_keys`;
}
