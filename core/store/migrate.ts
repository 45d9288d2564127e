import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import type { Sql } from "./database.js";

/** A migration file: `NNNN_name.sql` in core/store/migrations, applied in name order. */
export interface Migration {
  readonly version: string;
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_KEY = 7_311_420_001;

export async function readMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(new URL(file, dir), "utf8");
      return {
        version: file.slice(0, 4),
        name: file.slice(5, -4),
        sql: text,
        checksum: createHash("sha256").update(text).digest("hex"),
      };
    }),
  );
}

export interface MigrateResult {
  applied: string[];
  current: string | undefined;
}

/**
 * Applies pending migrations, each in its own transaction. A session advisory lock serialises
 * processes starting at the same time; the second one finds nothing left to do. A changed checksum
 * of an applied migration is an error: migrations are append-only.
 */
export async function migrate(sql: Sql, migrations?: Migration[]): Promise<MigrateResult> {
  const all = migrations ?? (await readMigrations());
  const applied: string[] = [];
  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await conn`
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
    const rows = await conn<{ version: string; checksum: string }[]>`
      select version, checksum from schema_migrations`;
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    for (const m of all) {
      const previous = done.get(m.version);
      if (previous !== undefined) {
        if (previous !== m.checksum) {
          throw new Error(`migration ${m.version}_${m.name} was changed after it was applied`);
        }
        continue;
      }
      await conn.unsafe("begin");
      try {
        await conn.unsafe(m.sql);
        await conn`insert into schema_migrations (version, name, checksum)
                   values (${m.version}, ${m.name}, ${m.checksum})`;
        await conn.unsafe("commit");
      } catch (error) {
        await conn.unsafe("rollback");
        throw new Error(`migration ${m.version}_${m.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      applied.push(`${m.version}_${m.name}`);
    }
    return { applied, current: all.at(-1)?.version };
  } finally {
    await conn`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => undefined);
    conn.release();
  }
}
