import type { SerializeCreation } from "./create-table-once.js";

/** Runs `rewrite` with no other rewrite of the same table running, here or (via the lock) elsewhere. */
export type SerializeRewrite = <T>(tableName: string, rewrite: () => Promise<T>) => Promise<T>;

/**
 * One rewrite (compaction, index build, an erasure's purge) of a table at a time. LanceDB refuses a
 * compaction that overlaps another of the same table ("Rewrite transaction was preempted by
 * concurrent transaction Rewrite"), and a maintenance job re-queued while it runs, a second worker or
 * an erasure's purge all start one. Callers of this process queue in order; `acrossProcesses` (a
 * PostgreSQL advisory lock in start-storage) keeps other processes on the same store out.
 */
export function serializeRewrites(
  acrossProcesses: SerializeCreation = (_name, run) => run(),
): SerializeRewrite {
  const tails = new Map<string, Promise<void>>();
  return async (name, rewrite) => {
    const before = tails.get(name) ?? Promise.resolve();
    let done = () => {};
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = before.then(() => mine);
    tails.set(name, tail);
    await before;
    try {
      return await acrossProcesses(name, rewrite);
    } finally {
      done();
      if (tails.get(name) === tail) tails.delete(name);
    }
  };
}
