import type { Sql } from "./database.js";
import { installJobQueue } from "./job-queue.js";
import { type MigrateResult, migrate } from "./migrate.js";

// graphile-worker's own installer is not safe when two processes install it into a fresh database
// at the same time (both try to create its schema), so installers take turns under this lock.
const JOB_QUEUE_INSTALL_LOCK_KEY = 7_311_420_004;

/** Brings a database to the current schema: the job queue's tables, then our migrations. */
export async function prepareDatabase(databaseUrl: string, sql: Sql): Promise<MigrateResult> {
  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(${JOB_QUEUE_INSTALL_LOCK_KEY})`;
    await installJobQueue(databaseUrl);
  } finally {
    await conn`select pg_advisory_unlock(${JOB_QUEUE_INSTALL_LOCK_KEY})`.catch(() => undefined);
    conn.release();
  }
  return migrate(sql);
}
