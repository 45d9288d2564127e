import type { TransactionSql } from "../store/database.js";

export interface RecentMemory {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly indexedChunks: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly kind: string;
}

/**
 * The newest current memories (spec service_list_recent: sorted by created_at descending). A chunk
 * counts as indexed once its vector is stored (DESIGN "Storage"). Superseded versions are history, not
 * recent memories; queued documents are listed once indexed (spec "States and transitions").
 */
export async function listRecent(tx: TransactionSql, tenantId: string, k: number): Promise<RecentMemory[]> {
  const rows = await tx<
    {
      id: string;
      title: string;
      status: string;
      indexed: number;
      created_at: Date;
      updated_at: Date;
      kind: string;
    }[]
  >`
    select m.id, m.title, m.status, m.kind, m.created_at, m.updated_at,
           (select count(*) from chunks c
            where c.tenant_id = m.tenant_id and c.memory_id = m.id and c.vector_stored)::int as indexed
    from memories m
    where m.tenant_id = ${tenantId} and m.valid_to is null and m.status <> 'queued'
    order by m.created_at desc, m.id
    limit ${k}`;
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    status: r.status,
    indexedChunks: r.indexed,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    kind: r.kind,
  }));
}
