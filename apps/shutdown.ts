import type { Logger } from "../config/logger.js";
import { collectStartupGarbage } from "../lib/heap-growth-bound.js";

/**
 * The one shutdown path of every process. Each part pushes its stop as soon as it runs; stopping
 * runs them last-started-first, so a process drains HTTP, then gRPC, then jobs, and closes storage
 * (embedded PostgreSQL) last. A failed step is logged and the rest still run.
 */
export interface Shutdown {
  /** Registers the stop of a part that has just started. */
  push(stop: () => Promise<void>): void;
  /** Stops everything started so far, once; later calls wait for the same run. */
  stopAll(): Promise<void>;
}

export function createShutdown(logger: Logger): Shutdown {
  const stops: (() => Promise<void>)[] = [];
  let running: Promise<void> | undefined;
  const run = async () => {
    for (let stop = stops.pop(); stop; stop = stops.pop()) {
      await stop().catch((error: unknown) => logger.error({ err: error }, "shutdown step failed"));
    }
  };
  return {
    push: (stop) => {
      stops.push(stop);
    },
    stopAll: () => {
      running ??= run();
      return running;
    },
  };
}

/**
 * For a process's composition root: a shutdown whose SIGINT/SIGTERM handlers are registered at once,
 * before anything starts, so a signal during a slow start still stops what already runs, in order.
 * The process exits 0 after a clean stop, 1 if stopping threw.
 */
export function createProcessShutdown(logger: Logger, what: string): Shutdown {
  const shutdown = createShutdown(logger);
  const onSignal = (signal: string) => {
    logger.info({ signal, process: what }, "shutting down: draining requests and jobs");
    shutdown.stopAll().then(
      () => {
        logger.info({ process: what }, "stopped");
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return shutdown;
}

/** Runs a root's start-up, then collects what start-up left (collectStartupGarbage); a failure stops
 * whatever started and exits 1 with the error logged. */
export async function startOrExit<T>(
  shutdown: Shutdown,
  logger: Logger,
  start: () => Promise<T>,
): Promise<T> {
  try {
    const started = await start();
    collectStartupGarbage();
    return started;
  } catch (error) {
    logger.fatal({ err: error }, "start-up failed");
    await shutdown.stopAll();
    process.exit(1);
  }
}
