/**
 * Runs CPU-bound work items of many concurrent callers on the calling thread in slices of at most
 * `sliceMs`, with one full turn of the event loop (timers, I/O, immediates) between slices.
 *
 * Why: the built-in embedder runs on the main thread. Each concurrent write started its own embedding
 * on `setImmediate`, and Node runs every immediate queued before the check phase in one go — a batch
 * of 64 writes' embeddings (≈ 20 ms) ran back to back while the answer to that batch's BEGIN waited
 * in the poll queue (measured: 18–33 ms from asking for the transaction to its first statement, out
 * of a 60 ms transaction). Sliced, an I/O completion waits at most one slice.
 *
 * Callers take turns one item at a time (round robin), so a one-text query is not queued behind a
 * 500-chunk document.
 */
export interface TimeSlicedLane {
  /** Runs `work(0) … work(count - 1)` in the lane; answers their results in order. */
  run<T>(count: number, work: (index: number) => T): Promise<T[]>;
}

interface Job {
  readonly count: number;
  readonly work: (index: number) => unknown;
  readonly results: unknown[];
  readonly resolve: (results: unknown[]) => void;
  readonly reject: (error: unknown) => void;
}

export function createTimeSlicedLane(sliceMs: number): TimeSlicedLane {
  const jobs: Job[] = [];
  let cursor = 0;
  let draining = false;

  const slice = (): void => {
    const started = performance.now();
    do {
      if (cursor >= jobs.length) cursor = 0;
      const job = jobs[cursor] as Job;
      let finished: boolean;
      try {
        job.results.push(job.work(job.results.length));
        finished = job.results.length === job.count;
        if (finished) job.resolve(job.results);
      } catch (error) {
        job.reject(error);
        finished = true;
      }
      if (finished) jobs.splice(cursor, 1);
      else cursor++;
    } while (jobs.length > 0 && performance.now() - started < sliceMs);
    if (jobs.length > 0) setImmediate(slice);
    else draining = false;
  };

  return {
    run<T>(count: number, work: (index: number) => T): Promise<T[]> {
      if (count === 0) return Promise.resolve([]);
      return new Promise<T[]>((resolve, reject) => {
        jobs.push({ count, work, results: [], resolve: resolve as (results: unknown[]) => void, reject });
        if (!draining) {
          draining = true;
          // Never in the caller's own turn: the caller's I/O (a transaction's first statements) goes first.
          setImmediate(slice);
        }
      });
    },
  };
}
