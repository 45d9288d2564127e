import type { Database } from "../store/database.js";
import { purgeVectorTable } from "../vectors/purge-vector-table.js";
import type { VectorStore } from "../vectors/vector-store.js";

export interface PurgeReport {
  /** The tenant no longer exists: its vector tables were dropped. */
  readonly workspaceErased: boolean;
  readonly tablesDropped: number;
  readonly tablesPurged: number;
  readonly orphanVectorsRemoved: number;
  readonly orphanJobsRemoved: number;
}

/** Tables whose dead tuples may hold erased content; VACUUM makes their space reusable. */
const VACUUMED_TABLES = [
  "memories",
  "chunks",
  "edges",
  "outbox",
  "bm25_term_stats",
  "bm25_stats_delta",
  "webhook_deliveries",
  "idempotency_keys",
];

/**
 * The worker's half of an erasure (docs/erasure.md "Vacuum"), idempotent:
 * - a tenant that no longer exists (workspace erased) loses every vector table left of it;
 * - otherwise, in every embedding space, vectors whose chunk is gone (a write racing the erasure)
 *   are deleted, then the table is purged (purge-vector-table.ts: deletions materialised, every
 *   older version and its files removed); jobs naming a memory that is gone are removed;
 * - VACUUM on the tables that held the content, so their dead tuples are reclaimed now rather than
 *   whenever autovacuum comes by.
 */
export async function purgeErased(
  deps: { readonly db: Database; readonly vectors: VectorStore },
  tenantId: string,
): Promise<PurgeReport> {
  const { db, vectors } = deps;
  const [tenant] = await db.sql<{ id: string }[]>`select id from tenants where id = ${tenantId}`;
  const spaces = await vectors.spaces(tenantId);
  if (!tenant) {
    for (const space of spaces) await vectors.dropSpace(tenantId, space);
    await vacuum(db);
    return {
      workspaceErased: true,
      tablesDropped: spaces.length,
      tablesPurged: 0,
      orphanVectorsRemoved: 0,
      orphanJobsRemoved: 0,
    };
  }
  let orphanVectorsRemoved = 0;
  for (const space of spaces) {
    const rows = await vectors.scan(tenantId, space);
    const live = new Set(
      (
        await db.withTenant(
          tenantId,
          (tx) =>
            tx<{ id: string }[]>`
            select id from chunks
            where tenant_id = ${tenantId} and id = any(${tx.array(rows.map((r) => r.chunkId))}::uuid[])`,
        )
      ).map((r) => r.id),
    );
    const orphans = rows.filter((r) => !live.has(r.chunkId)).map((r) => r.chunkId);
    if (orphans.length > 0) await vectors.deleteChunks(tenantId, space, orphans);
    orphanVectorsRemoved += orphans.length;
    await purgeVectorTable(vectors, tenantId, space);
  }
  const [jobs] = await db.sql<{ n: number }[]>`select remove_orphan_memory_jobs(${tenantId}) as n`;
  await vacuum(db);
  return {
    workspaceErased: false,
    tablesDropped: 0,
    tablesPurged: spaces.length,
    orphanVectorsRemoved,
    orphanJobsRemoved: jobs?.n ?? 0,
  };
}

async function vacuum(db: Database): Promise<void> {
  const present = await db.sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind = 'r' and c.relname = any(${VACUUMED_TABLES})`;
  // Names from the fixed list above, confirmed by the catalog; VACUUM cannot run in a transaction.
  for (const { name } of present) await db.sql.unsafe(`vacuum ${name}`);
}
