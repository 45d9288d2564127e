import type { FeedWatermark } from "./feed-watermark.js";
import type { TenantBm25Index } from "./tenant-bm25-index.js";

/** One tenant's index with how far it has read the change feed. */
export interface Bm25IndexEntry {
  readonly index: TenantBm25Index;
  readonly feed: FeedWatermark;
  bytes: number;
  /** Catch-ups of one tenant run one after the other. */
  lock: Promise<unknown>;
  /** When the index last changed without being written to its segment file (undefined: written). */
  dirtySince?: number | undefined;
}

export function newBm25IndexEntry(index: TenantBm25Index, feed: FeedWatermark): Bm25IndexEntry {
  return { index, feed, bytes: index.bytes, lock: Promise.resolve() };
}

/** Runs `fn` after every earlier holder of the entry's lock, whether those failed or not. */
export function withEntryLock<T>(entry: Bm25IndexEntry, fn: () => Promise<T>): Promise<T> {
  const run = entry.lock.then(fn, fn);
  entry.lock = run.catch(() => undefined);
  return run;
}
