import { hostname } from "node:os";
import { type Runner, run, type TaskList } from "graphile-worker";
import pg from "pg";
import type { Logger } from "../config/logger.js";
import type { ComponentCheck } from "../core/status/status-service.js";
import type { Database } from "../core/store/database.js";
import { graphileLogger } from "./graphile-logger.js";

export interface WorkerOptions {
  readonly db: Database;
  readonly databaseUrl: string;
  readonly concurrency: number;
  readonly tasks: TaskList;
  readonly logger: Logger;
  /** How often the worker reports itself alive in worker_heartbeats. */
  readonly heartbeatMs?: number;
}

export interface Worker {
  readonly id: string;
  /** For /api/health: the worker in this process. */
  readonly check: ComponentCheck;
  /** Finishes running jobs, then stops taking new ones. */
  stop(): Promise<void>;
}

/** Runs background jobs (async indexing, reconciliation, webhook delivery) from the durable queue. */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const id = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  // Our own pool so a lost database connection is logged, not an unhandled 'error' that would
  // take the whole process down; graphile-worker reconnects by itself.
  const pgPool = new pg.Pool({ connectionString: options.databaseUrl, max: options.concurrency + 2 });
  pgPool.on("error", (error) => options.logger.warn({ err: error }, "worker database connection lost"));
  const runner: Runner = await run({
    pgPool,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: options.tasks,
    logger: graphileLogger(options.logger),
  });
  let running = true;
  runner.promise.then(
    () => {
      running = false;
    },
    (error: unknown) => {
      running = false;
      options.logger.error({ err: error }, "worker stopped with an error");
    },
  );
  const beat = () =>
    options.db.sql`
      insert into worker_heartbeats (worker_id) values (${id})
      on conflict (worker_id) do update set seen_at = now()`.catch(() => undefined);
  await beat();
  const timer = setInterval(beat, options.heartbeatMs ?? 10_000);
  timer.unref();
  return {
    id,
    check: {
      name: "worker",
      optional: false,
      check: async () =>
        running ? { status: "ok", detail: `in process (${id})` } : { status: "down", detail: "stopped" },
    },
    async stop() {
      clearInterval(timer);
      await runner.stop();
      running = false;
      await pgPool.end();
      await options.db.sql`delete from worker_heartbeats where worker_id = ${id}`.catch(() => undefined);
    },
  };
}

/** For a core without its own worker: some worker reported itself within the last 30 s. */
export function remoteWorkerCheck(db: Database): ComponentCheck {
  return {
    name: "worker",
    optional: false,
    async check() {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from worker_heartbeats where seen_at > now() - interval '30 seconds'`;
      const n = row?.n ?? 0;
      return n > 0
        ? { status: "ok", detail: `${n} worker(s) alive` }
        : { status: "down", detail: "no worker alive" };
    },
  };
}
