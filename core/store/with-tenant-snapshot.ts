import type { Database, TransactionSql } from "./database.js";

/**
 * `db.withTenant` in one REPEATABLE READ snapshot: a recall reads BM25 statistics, the index's change
 * feed and then the chunks and memories its hits point to, and all of it must come from one snapshot —
 * under READ COMMITTED an ingest committing in between would shift what the reader sees.
 */
export function withTenantSnapshot<T>(
  db: Database,
  tenantId: string,
  fn: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  return db.withTenant(tenantId, fn, { snapshot: true });
}
