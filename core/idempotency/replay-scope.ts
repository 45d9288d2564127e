import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Set while a keyed write is re-run after its first run's process died (idempotent-writes.ts): the
 * first run may have committed, and what it wrote is then found instead of written again. `since` is
 * when the key was claimed, so a found memory recorded after it is the first run's own write and is
 * answered as written (unchanged = false), as the first run would have answered.
 */
const scope = new AsyncLocalStorage<{ readonly since: Date }>();

export function runAsReplay<T>(since: Date, work: () => Promise<T>): Promise<T> {
  return scope.run({ since }, work);
}

/** The claim time of the key being replayed, or undefined outside a replay. */
export function replayedSince(): Date | undefined {
  return scope.getStore()?.since;
}

/** Whether a row recorded at `recordedAt` was written by the replayed key's first run. */
export function writtenByReplayedKey(recordedAt: Date): boolean {
  const since = replayedSince();
  return since !== undefined && recordedAt.getTime() >= since.getTime();
}
