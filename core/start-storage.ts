import type { Config } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import { MemoryBudget } from "../lib/memory-budget/memory-budget.js";
import { withAdvisoryLock } from "./store/advisory-lock.js";
import { createDatabase, type Database } from "./store/database.js";
import { startEmbeddedPostgres } from "./store/embedded-postgres.js";
import { prepareDatabase } from "./store/prepare-database.js";
import { openVectorStore } from "./vectors/lancedb-vector-store.js";
import type { VectorStore } from "./vectors/vector-store.js";

export interface Storage {
  readonly db: Database;
  readonly databaseUrl: string;
  readonly vectors: VectorStore;
  /** The process's one budget for per-workspace derived state (ADR 0370): vector tables here, BM25 indexes in core. */
  readonly workspaceState: MemoryBudget;
  /** True when PostgreSQL runs embedded in this process's data directory. */
  readonly embedded: boolean;
  stop(): Promise<void>;
  /**
   * Stops the embedded PostgreSQL without closing anything first, for a process that must exit now
   * (a second signal, a crash whose stop overran); nothing with DATABASE_URL.
   */
  stopDatabaseServer(): Promise<void>;
}

/** PostgreSQL (given, or embedded without DATABASE_URL) at the current schema, plus LanceDB. */
export async function startStorage(config: Config, logger: Logger): Promise<Storage> {
  const embeddedServer = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPgPort,
        onLog: (line) => logger.debug({ component: "embedded-postgres" }, line),
      });
  const databaseUrl = config.databaseUrl ?? embeddedServer?.url;
  if (!databaseUrl) throw new Error("no database");
  const db = createDatabase({
    url: databaseUrl,
    maxConnections: config.databasePoolSize,
    onStallChange: (stalled) =>
      stalled
        ? logger.warn("the database does not answer pings: calls are refused with 503 until it does")
        : logger.info("the database answers again"),
  });
  try {
    const migrated = await prepareDatabase(databaseUrl, db.sql);
    if (migrated.applied.length > 0) logger.info({ applied: migrated.applied }, "database migrated");
    const workspaceState = new MemoryBudget({ budgetBytes: config.workspaceState.budgetBytes });
    const vectors = await openVectorStore(config.lancedbUri, {
      budget: workspaceState,
      indexCacheBytes: config.workspaceState.vectorIndexCacheBytes,
      // Every core and worker process on this database creates a vector table at most once.
      serializeCreation: (name, create) => withAdvisoryLock(db.sql, `memory.vector-table:${name}`, create),
      // … and rewrites a table (compaction, index build, purge) one at a time.
      serializeRewrites: (name, rewrite) =>
        withAdvisoryLock(db.sql, `memory.vector-rewrite:${name}`, rewrite),
      onConflict: (table, attempt) =>
        logger.debug({ table, attempt }, "vector write commit conflict; retrying"),
    });
    logger.info(
      {
        database: embeddedServer
          ? `embedded PostgreSQL in ${config.dataDir}/pg on 127.0.0.1:${config.embeddedPgPort}`
          : "PostgreSQL from DATABASE_URL",
        vectors: config.lancedbUri,
        schema: migrated.current,
      },
      "storage ready",
    );
    return {
      db,
      databaseUrl,
      vectors,
      workspaceState,
      embedded: embeddedServer !== undefined,
      async stop() {
        vectors.close();
        await db.close();
        await embeddedServer?.stop();
      },
      stopDatabaseServer: async () => {
        await embeddedServer?.stop();
      },
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    await embeddedServer?.stop();
    throw error;
  }
}
