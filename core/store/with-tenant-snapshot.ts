import type { Database, TransactionSql } from "./database.js";

/**
 * Like `db.withTenant`, but REPEATABLE READ: a recall reads the BM25 posting lists in several rounds
 * and then the chunks and memories they point to, and all of it must come from one snapshot — under
 * READ COMMITTED an ingest committing between two rounds would shift the lists under the reader.
 * Same role and tenant setting as withTenant (core/store/database.ts), so Row-Level Security applies.
 */
export async function withTenantSnapshot<T>(
  db: Database,
  tenantId: string,
  fn: (tx: TransactionSql) => Promise<T>,
): Promise<T> {
  const result = await db.sql.begin("isolation level repeatable read", async (tx) => {
    await tx`select set_config('role', 'memory_app', true), set_config('app.tenant_id', ${tenantId}, true)`;
    return fn(tx);
  });
  return result as T;
}
