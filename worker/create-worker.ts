import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import { makeWorkerUtils, type Runner, run, type TaskList, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import type { Logger } from "../config/logger.js";
import type { ComponentCheck } from "../core/status/status-service.js";
import type { Database } from "../core/store/database.js";
import { refreshStaleStatistics } from "../core/store/refresh-stale-statistics.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { graphileLogger } from "./graphile-logger.js";

export interface WorkerOptions {
  readonly db: Database;
  readonly databaseUrl: string;
  readonly concurrency: number;
  readonly tasks: TaskList;
  readonly logger: Logger;
  /** How often the worker reports itself alive in worker_heartbeats. */
  readonly heartbeatMs?: number;
  /** A worker process silent for this long is dead: its job locks are released (default 30 s). */
  readonly deadAfterMs?: number;
  /** The process's metrics: job durations and outcomes, the queue's pool. */
  readonly metrics?: ServiceMetrics | undefined;
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
  // graphile-worker locks jobs under one random id per concurrent worker; record them with our
  // heartbeat so that, should this process die, a live one can release its locks.
  const jobWorkerIds = new Set<string>();
  const events = new EventEmitter() as WorkerEvents;
  events.on("worker:create", ({ worker }) => jobWorkerIds.add(worker.workerId));
  if (options.metrics) observeJobs(events, pgPool, options.metrics);
  const utils = await makeWorkerUtils({ pgPool, logger: graphileLogger(options.logger) });
  const runner: Runner = await run({
    pgPool,
    events,
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
  const beat = async () => {
    await options.db.sql`
      insert into worker_heartbeats (worker_id, job_worker_ids) values (${id}, ${[...jobWorkerIds]})
      on conflict (worker_id) do update set seen_at = now(), job_worker_ids = excluded.job_worker_ids`;
    await releaseDeadWorkers(options.db, utils, options.deadAfterMs ?? 30_000, options.logger);
  };
  // With each beat: ANALYZE the tables a bulk load outgrew, if autovacuum has not (one at a time).
  let analysis: Promise<void> | undefined;
  const keepStatistics = () => {
    analysis ??= refreshStaleStatistics(options.db.sql)
      .then((tables) => {
        if (tables.length > 0) options.logger.debug({ tables }, "planner statistics refreshed");
      })
      .catch((error: unknown) => options.logger.warn({ err: error }, "refreshing planner statistics failed"))
      .finally(() => {
        analysis = undefined;
      });
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch(() => undefined);
    keepStatistics();
  }, options.heartbeatMs ?? 10_000);
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
      await analysis;
      await runner.stop();
      running = false;
      await utils.release();
      await pgPool.end();
      await options.db.sql`delete from worker_heartbeats where worker_id = ${id}`.catch(() => undefined);
    },
  };
}

/**
 * Job durations by task and outcome from graphile-worker's events (job:error is one failed attempt;
 * it retries until max_attempts), and the queue pool's connections at scrape time.
 */
function observeJobs(events: WorkerEvents, pgPool: pg.Pool, metrics: ServiceMetrics): void {
  const started = new Map<string, number>();
  events.on("job:start", ({ job }) => started.set(job.id, performance.now()));
  const finish = (job: { id: string; task_identifier: string }, outcome: "success" | "error") => {
    const at = started.get(job.id);
    started.delete(job.id);
    if (at !== undefined) {
      metrics.jobs.observe({ task: job.task_identifier, outcome }, (performance.now() - at) / 1000);
    }
  };
  events.on("job:success", ({ job }) => finish(job, "success"));
  events.on("job:error", ({ job }) => finish(job, "error"));
  metrics.beforeScrape(async () => {
    metrics.jobPoolConnections.set({ state: "total" }, pgPool.totalCount);
    metrics.jobPoolConnections.set({ state: "idle" }, pgPool.idleCount);
    metrics.jobPoolConnections.set({ state: "waiting" }, pgPool.waitingCount);
  });
}

/**
 * Releases the job locks of worker processes that stopped beating (killed, crashed, lost their
 * host) with graphile-worker's forceUnlockWorkers, so their jobs run again within a minute instead
 * of after graphile-worker's 4-hour lock expiry. Several live workers may do this at once: unlocking
 * is idempotent, and the row goes only after its locks are released.
 */
async function releaseDeadWorkers(
  db: Database,
  utils: { forceUnlockWorkers(ids: string[]): Promise<void> },
  deadAfterMs: number,
  logger: Logger,
): Promise<void> {
  const dead = await db.sql<{ worker_id: string; job_worker_ids: string[]; seen_at: Date }[]>`
    select worker_id, job_worker_ids, seen_at from worker_heartbeats
    where seen_at < now() - make_interval(secs => ${deadAfterMs / 1000})`;
  for (const row of dead) {
    if (row.job_worker_ids.length > 0) await utils.forceUnlockWorkers(row.job_worker_ids);
    // Still silent (a worker that beat again meanwhile is alive and keeps its row).
    await db.sql`
      delete from worker_heartbeats
      where worker_id = ${row.worker_id} and seen_at < now() - make_interval(secs => ${deadAfterMs / 1000})`;
    logger.warn(
      { deadWorker: row.worker_id, lastSeen: row.seen_at.toISOString() },
      "released the job locks of a worker that stopped reporting",
    );
  }
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
