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

/** Longest a crashing process spends stopping what runs before it exits anyway. */
const CRASH_STOP_MS = 10_000;

/**
 * For a process's composition root: a shutdown whose SIGINT/SIGTERM handlers are registered at once,
 * before anything starts, so a signal during a slow start still stops what already runs, in order.
 * The process exits 0 after a clean stop, 1 if stopping threw.
 *
 * An error nothing caught — or a rejection nobody handled, which Node raises as one — still ends the
 * process (its state is unknown), but as a fatal line of the structured log rather than a stack on
 * stderr that log collectors miss, and after stopping what runs within CRASH_STOP_MS: requests
 * drained, the embedded PostgreSQL stopped instead of left behind as an orphan. Exit code 1.
 */
export function createProcessShutdown(logger: Logger, what: string): Shutdown {
  const shutdown = createShutdown(logger);
  let crashing = false;
  process.on("uncaughtException", (error, origin) => {
    if (crashing) {
      logger.fatal({ err: error, origin, process: what }, "another uncaught error while stopping");
      return;
    }
    crashing = true;
    logger.fatal({ err: error, origin, process: what }, "uncaught error: stopping the process");
    setTimeout(() => process.exit(1), CRASH_STOP_MS);
    void shutdown.stopAll().finally(() => process.exit(1));
  });
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
