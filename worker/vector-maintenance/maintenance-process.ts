import { type ChildProcess, fork } from "node:child_process";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../../config/logger.js";
import type { MaintainOptions, MaintainResult } from "../../core/vectors/maintain-vector-table.js";
import type { MaintainReply, MaintainRequest } from "./maintenance-child.js";

/** The child's module has this file's extension: .ts under tsx, .js in dist/. */
const CHILD_ENTRY = fileURLToPath(
  new URL(`./maintenance-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** The child leaves after this long without work: an idle child would hold ≈ 100 MB for nothing. */
const IDLE_EXIT_MS = 30_000;
/** Niceness of the child's threads: upkeep yields the CPU to recall and to writes. */
const CHILD_NICENESS = 10;

export interface VectorMaintainer {
  maintain(tenantId: string, space: string, options: MaintainOptions): Promise<MaintainResult>;
  /** The child's process id while it runs (for tests and operators). */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Vector-table upkeep in a child process at lower priority (ADR 0560). LanceDB runs every table's
 * CPU work — an ANN build as much as a search — on one pool of threads per process, so an index
 * build of one workspace queued every other workspace's searches behind it: measured, a search of a
 * 10k-row table took 3 ms alone and up to 36.6 s while a 40k-row HNSW build ran in the same process;
 * with the build in a child at niceness 10, at most 0.38 s (bench/upkeep-interference.ts). One
 * child, started on the first job, serves the jobs as they come and leaves when idle.
 */
export function createMaintenanceProcess(uri: string, logger: Logger): VectorMaintainer {
  let child: ChildProcess | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 0;
  const pending = new Map<
    number,
    { owner: ChildProcess; resolve: (r: MaintainResult) => void; reject: (e: Error) => void }
  >();

  const start = (): ChildProcess => {
    const started = fork(CHILD_ENTRY, [uri, String(CHILD_NICENESS)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    started.on("message", (reply: MaintainReply) => {
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if ("result" in reply) waiter?.resolve(reply.result);
      else waiter?.reject(new Error(`vector maintenance failed: ${reply.error}`));
      if (pending.size === 0) armIdleExit();
    });
    // While idle the child does not keep the parent alive (a test's or tool's process may end).
    started.unref();
    started.channel?.unref();
    started.on("exit", (code, signal) => {
      if (child === started) child = undefined;
      // Its jobs fail and are retried by the queue; the next job starts a new child. Only its own:
      // a child that left idle may exit after a newer one took a job.
      const lost = [...pending].filter(([, waiter]) => waiter.owner === started);
      if (lost.length > 0)
        logger.warn({ code, signal }, "vector maintenance process ended with jobs running");
      for (const [id, waiter] of lost) {
        pending.delete(id);
        waiter.reject(new Error("vector maintenance process ended"));
      }
    });
    started.on("error", (error) => logger.warn({ err: error }, "vector maintenance process failed"));
    return started;
  };
  const armIdleExit = () => {
    clearTimeout(idleTimer);
    child?.unref();
    child?.channel?.unref();
    idleTimer = setTimeout(() => {
      if (pending.size > 0 || child === undefined) return;
      // Forgotten first, so a job arriving while it exits starts a new child rather than writing to
      // a closed channel.
      const leaving = child;
      child = undefined;
      leaving.disconnect();
    }, IDLE_EXIT_MS);
    idleTimer.unref();
  };

  return {
    get pid() {
      return child?.pid;
    },
    maintain(tenantId, space, options) {
      clearTimeout(idleTimer);
      child ??= start();
      child.ref();
      child.channel?.ref();
      const id = nextId++;
      const request: MaintainRequest = { id, tenantId, space, options };
      const owner = child;
      return new Promise((resolve, reject) => {
        pending.set(id, { owner, resolve, reject });
        owner.send(request);
      });
    },
    async close() {
      clearTimeout(idleTimer);
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      // An idle child is unreferenced: without this the wait for its exit would not hold the process.
      running.ref();
      running.kill("SIGTERM");
      await exited;
    },
  };
}
