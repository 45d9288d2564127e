import type { Sql } from "./database.js";

/**
 * Runs `fn` while holding a PostgreSQL advisory lock on `key`, shared by every process on the same
 * database (released with the transaction, so also when the holder's connection dies). For work
 * outside PostgreSQL that must happen once across processes, such as creating a LanceDB table.
 */
export async function withAdvisoryLock<T>(sql: Sql, key: string, fn: () => Promise<T>): Promise<T> {
  const result = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
    return fn();
  });
  return result as T;
}
