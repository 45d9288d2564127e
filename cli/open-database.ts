import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config/config.js";
import { createDatabase, type Database } from "../core/store/database.js";
import { startEmbeddedPostgres } from "../core/store/embedded-postgres.js";
import { prepareDatabase } from "../core/store/prepare-database.js";

export interface CliDatabase {
  readonly db: Database;
  close(): Promise<void>;
}

/**
 * The service's database, found the way `npm start` finds it: DATABASE_URL; else the embedded
 * cluster in DATA_DIR — the running one of a started service (reached with the password the cluster
 * keeps in DATA_DIR), or started here for the duration of the command when no service runs.
 */
export async function openDatabase(config: Config): Promise<CliDatabase> {
  if (config.databaseUrl) return ready(config.databaseUrl, async () => undefined);
  const running = await runningEmbeddedUrl(config);
  if (running) return ready(running, async () => undefined);
  const server = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
  try {
    return await ready(server.url, () => server.stop());
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function ready(url: string, stopServer: () => Promise<void>): Promise<CliDatabase> {
  const db = createDatabase({ url, maxConnections: 2 });
  try {
    // The schema a fresh database needs; a no-op on one a service already migrated.
    await prepareDatabase(url, db.sql);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    db,
    async close() {
      await db.close();
      await stopServer();
    },
  };
}

/** The URL of the embedded cluster a running service started in DATA_DIR, if it answers. */
async function runningEmbeddedUrl(config: Config): Promise<string | undefined> {
  const password = await readFile(join(config.dataDir, "pg-password"), "utf8").catch(() => undefined);
  if (password === undefined) return undefined;
  const url = `postgres://postgres:${encodeURIComponent(password.trim())}@127.0.0.1:${config.embeddedPgPort}/memory`;
  const probe = createDatabase({ url, maxConnections: 1 });
  try {
    return (await probe.ping(2000)) ? url : undefined;
  } finally {
    await probe.close();
  }
}
