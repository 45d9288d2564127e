import type { Database, TransactionSql } from "./database.js";

/**
 * `db.withTenant` in one REPEATABLE READ snapshot: a recall reads the BM25 posting lists in several
 * rounds and then the chunks and memories they point to, and all of it must come from one snapshot —
 * under READ COMMITTED an ingest committing between two rounds would shift the lists under the reader.
 */
export function withTenantSnapshot<T>(
  db: Database,
  tenantId: string,
  fn: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  return db.withTenant(tenantId, fn, { snapshot: true });
}
