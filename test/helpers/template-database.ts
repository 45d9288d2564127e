import { createHash } from "node:crypto";
import postgres from "postgres";
import { createDatabase } from "../../core/store/database.js";
import { readMigrations } from "../../core/store/migrate.js";
import { prepareDatabase } from "../../core/store/prepare-database.js";

/** The admin URL with another database name. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A migrated template named after the migrations' checksum, so each test file clones it in
 * ~100 ms instead of migrating; a changed migration yields a new template.
 */
export async function ensureTemplateDatabase(adminUrl: string): Promise<string> {
  const migrations = await readMigrations();
  const digest = createHash("sha256");
  for (const m of migrations) digest.update(m.checksum);
  const name = `memory_test_tpl_${digest.digest("hex").slice(0, 12)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin`select pg_advisory_lock(7311420003)`;
    const [exists] = await admin`select 1 as one from pg_database where datname = ${name} and datistemplate`;
    if (!exists) {
      await admin.unsafe(`drop database if exists "${name}"`);
      await admin.unsafe(`create database "${name}"`);
      const url = databaseUrl(adminUrl, name);
      const db = createDatabase({ url, maxConnections: 2 });
      try {
        await prepareDatabase(url, db.sql);
      } finally {
        await db.close();
      }
      await admin.unsafe(`alter database "${name}" with is_template true`);
    }
    await admin`select pg_advisory_unlock(7311420003)`;
  } finally {
    await admin.end();
  }
  return name;
}
