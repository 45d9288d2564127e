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
  /**
   * Registers what must be stopped even when the process exits without stopping in order (a repeated
   * signal, a crash whose stop overran): the embedded PostgreSQL, which would outlive the process.
   * In addition to push(): an orderly stop does not run it.
   */
  pushUrgent(stop: () => Promise<void>): void;
  /** Stops everything started so far, once; later calls wait for the same run. */
  stopAll(): Promise<void>;
  /** Runs the urgent stops at once, once, whether or not stopAll is under way. */
  stopUrgent(): Promise<void>;
}

export function createShutdown(logger: Logger): Shutdown {
  const stops: (() => Promise<void>)[] = [];
  const urgentStops: (() => Promise<void>)[] = [];
  let running: Promise<void> | undefined;
  let urgent: Promise<void> | undefined;
  const runAll = async (list: (() => Promise<void>)[]) => {
    for (let stop = list.pop(); stop; stop = list.pop()) {
      await stop().catch((error: unknown) => logger.error({ err: error }, "shutdown step failed"));
    }
  };
  return {
    push: (stop) => {
      stops.push(stop);
    },
    pushUrgent: (stop) => {
      urgentStops.push(stop);
    },
    stopAll: () => {
      running ??= runAll(stops);
      return running;
    },
    stopUrgent: () => {
      urgent ??= runAll(urgentStops);
      return urgent;
    },
  };
}

/** Longest a crashing process spends stopping what runs before it exits anyway. */
const CRASH_STOP_MS = 10_000;

/**
 * A signal within this long of the first is the same request to stop, delivered twice: `npm start`
 * forwards the SIGTERM or SIGINT it gets to the service, which gets it from the group as well
 * (`kill -- -PGID`, Ctrl-C in a terminal, `timeout`); so does any wrapper that forwards signals to
 * a child in its own group. A signal after it means "stop now".
 */
const SIGNAL_ECHO_MS = 1_000;

/**
 * For a process's composition root: a shutdown whose SIGINT/SIGTERM handlers are registered at once,
 * before anything starts, so a signal during a slow start still stops what already runs, in order.
 * The process exits 0 after a clean stop, 1 if stopping threw.
 *
 * The handlers stay registered until the process exits. Removing them (`process.once`) gave a second
 * signal Node's default action — the process ended on the spot, before the embedded PostgreSQL was
 * stopped — and `npm start` sent one to the group's every SIGTERM (issue 51). A second signal
 * SIGNAL_ECHO_MS or more after the first cuts the drain short: the urgent stops run (the embedded
 * PostgreSQL is stopped) and the process exits 1.
 *
 * An error nothing caught — or a rejection nobody handled, which Node raises as one — still ends the
 * process (its state is unknown), but as a fatal line of the structured log rather than a stack on
 * stderr that log collectors miss, and after stopping what runs within CRASH_STOP_MS: requests
 * drained, the embedded PostgreSQL stopped instead of left behind as an orphan. Exit code 1.
 */
export function createProcessShutdown(logger: Logger, what: string): Shutdown {
  const shutdown = createShutdown(logger);
  const exitAfterUrgentStops = () => {
    void shutdown.stopUrgent().finally(() => process.exit(1));
  };
  let crashing = false;
  process.on("uncaughtException", (error, origin) => {
    if (crashing) {
      logger.fatal({ err: error, origin, process: what }, "another uncaught error while stopping");
      return;
    }
    crashing = true;
    logger.fatal({ err: error, origin, process: what }, "uncaught error: stopping the process");
    setTimeout(exitAfterUrgentStops, CRASH_STOP_MS);
    void shutdown.stopAll().finally(() => process.exit(1));
  });
  let firstSignalAt: number | undefined;
  let hurried = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
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
      return;
    }
    if (Date.now() - firstSignalAt < SIGNAL_ECHO_MS || hurried) return;
    hurried = true;
    logger.warn(
      { signal, process: what },
      "second signal: exiting now (the embedded PostgreSQL stopped first)",
    );
    exitAfterUrgentStops();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
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
