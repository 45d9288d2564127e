import { Logger, runMigrations } from "graphile-worker";
import type postgres from "postgres";
import type { Sql, TransactionSql } from "./database.js";

/**
 * The durable job queue is graphile-worker on our own PostgreSQL: jobs are rows, so enqueueing in
 * the same transaction as the data they concern makes "stored but never indexed" impossible.
 */

// graphile-worker logs every migration step at info level; ours are logged by the caller.
const quietLogger = new Logger(() => () => undefined);

/** Installs or upgrades graphile-worker's schema (it serialises concurrent installers itself). */
export async function installJobQueue(databaseUrl: string): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, logger: quietLogger });
}

export interface EnqueueOptions {
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  priority?: number;
}

/**
 * Adds a job inside the caller's transaction (a tenant transaction runs as memory_app, which cannot
 * touch graphile-worker's tables; enqueue_job is SECURITY DEFINER for exactly this call).
 */
export async function enqueueJob(
  tx: Sql | TransactionSql,
  task: string,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<string> {
  const [row] = await tx<{ id: string }[]>`
    select enqueue_job(${task}, ${tx.json(payload as postgres.JSONValue)}::json, ${options.jobKey ?? null},
                       ${options.runAt ?? null}, ${options.maxAttempts ?? null}, ${options.priority ?? null})::text as id`;
  if (!row) throw new Error(`enqueue of ${task} returned no job`);
  return row.id;
}
