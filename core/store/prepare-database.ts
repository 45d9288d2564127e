import type { Sql } from "./database.js";
import { installJobQueue } from "./job-queue.js";
import { type MigrateResult, migrate } from "./migrate.js";

/** Brings a database to the current schema: the job queue's tables, then our migrations. */
export async function prepareDatabase(databaseUrl: string, sql: Sql): Promise<MigrateResult> {
  await installJobQueue(databaseUrl);
  return migrate(sql);
}
