import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { createDatabase, type Database } from "../../core/store/database.js";
import { prepareDatabase } from "../../core/store/prepare-database.js";
import { databaseUrl, ensureTemplateDatabase } from "./template-database.js";

export const ADMIN_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly db: Database;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** An empty database of its own (not migrated) for tests of the migration runner itself. */
export async function createEmptyDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `memory_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  return { name, url: databaseUrl(ADMIN_URL, name), drop: () => dropDatabase(name) };
}

async function dropDatabase(name: string): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}

/** A fresh, migrated database of this test file's own, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env.TEST_TEMPLATE_DATABASE || (await ensureTemplateDatabase(ADMIN_URL));
  const name = `memory_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database "${name}" template "${template}"`);
        break;
      } catch (error) {
        // Two files cloning the template at the same instant: PostgreSQL lets one copy at a time.
        if (attempt > 50 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = databaseUrl(ADMIN_URL, name);
  const db = createDatabase({ url, maxConnections: 5 });
  // The template is current by construction; this is a no-op unless a migration was added since.
  await prepareDatabase(url, db.sql);
  return {
    name,
    url,
    db,
    async drop() {
      await db.close();
      await dropDatabase(name);
    },
  };
}
