import { notFound } from "../errors.js";
import type { TransactionSql } from "../store/database.js";

export interface VersionRow {
  readonly id: string;
  readonly title: string;
  readonly validFrom: Date;
  readonly validTo: Date | null;
  readonly recordedAt: Date;
  readonly supersedesId: string | null;
  readonly updateReason: string | null;
  /** memories.kind and memory_type: what the registry's shape rules look at. */
  readonly kind: string;
  readonly memoryType: string;
  /** Only when asked for (withContent). */
  readonly content?: string;
}

/**
 * Every version of the fact `memoryId` belongs to (same lineage_id), oldest first by transaction
 * time, each with the version it superseded (its SUPERSEDES edge, kept even after later updates
 * closed it). Rows are never deleted by fact updates, so this is the whole bi-temporal history.
 * `withContent` adds each version's full text (up to 100 KB each, so only when asked for).
 */
export async function listVersions(
  tx: TransactionSql,
  tenantId: string,
  memoryId: string,
  withContent = false,
): Promise<VersionRow[]> {
  const rows = await tx<
    {
      id: string;
      title: string;
      valid_from: Date;
      valid_to: Date | null;
      recorded_at: Date;
      supersedes_id: string | null;
      update_reason: string | null;
      content: string | null;
      kind: string;
      memory_type: string;
    }[]
  >`
    select m.id, m.title, m.valid_from, m.valid_to, m.recorded_at, m.update_reason, m.kind, m.memory_type,
      ${withContent ? tx`m.content` : tx`null::text`} as content,
      (select e.to_id from edges e
        where e.tenant_id = m.tenant_id and e.from_id = m.id and e.rel_type = 'SUPERSEDES'
        order by e.valid_from limit 1) as supersedes_id
    from memories m
    where m.tenant_id = ${tenantId}
      and m.lineage_id = (select lineage_id from memories where tenant_id = ${tenantId} and id = ${memoryId})
    order by m.recorded_at, m.valid_from, m.id`;
  if (rows.length === 0) throw notFound(`memory ${memoryId}`);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    recordedAt: r.recorded_at,
    supersedesId: r.supersedes_id,
    updateReason: r.update_reason,
    kind: r.kind,
    memoryType: r.memory_type,
    ...(r.content === null ? {} : { content: r.content }),
  }));
}
