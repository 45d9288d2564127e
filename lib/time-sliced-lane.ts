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
 * 500-chunk document. Round robin alone is not enough when a bulk load has hundreds of one-text jobs
 * in the lane (4 batches of 100 one-chunk memories: 400 jobs): a recall's query waited for one item
 * of each — ≈ 200 ms, the p95 of recalls during a bulk load (issue 46). Urgent jobs (a recall's query,
 * someone waiting for the answer) therefore go before every other job, round robin among themselves.
 */
export interface TimeSlicedLane {
  /**
   * Runs `work(0) … work(count - 1)` in the lane; answers their results in order. `urgent` jobs are
   * served before all others.
   */
  run<T>(count: number, work: (index: number) => T, options?: { readonly urgent?: boolean }): Promise<T[]>;
}

interface Job {
  readonly count: number;
  readonly work: (index: number) => unknown;
  readonly results: unknown[];
  readonly resolve: (results: unknown[]) => void;
  readonly reject: (error: unknown) => void;
}

export function createTimeSlicedLane(sliceMs: number): TimeSlicedLane {
  const urgent = { jobs: [] as Job[], cursor: 0 };
  const normal = { jobs: [] as Job[], cursor: 0 };
  let draining = false;

  /** Runs the next item of the queue's next job (round robin); false when the queue is empty. */
  const step = (queue: { jobs: Job[]; cursor: number }): boolean => {
    if (queue.jobs.length === 0) return false;
    if (queue.cursor >= queue.jobs.length) queue.cursor = 0;
    const job = queue.jobs[queue.cursor] as Job;
    let finished: boolean;
    try {
      job.results.push(job.work(job.results.length));
      finished = job.results.length === job.count;
      if (finished) job.resolve(job.results);
    } catch (error) {
      job.reject(error);
      finished = true;
    }
    if (finished) queue.jobs.splice(queue.cursor, 1);
    else queue.cursor++;
    return true;
  };

  const slice = (): void => {
    const started = performance.now();
    while ((step(urgent) || step(normal)) && performance.now() - started < sliceMs) {
      // one item per turn of the loop
    }
    if (urgent.jobs.length + normal.jobs.length > 0) setImmediate(slice);
    else draining = false;
  };

  return {
    run<T>(
      count: number,
      work: (index: number) => T,
      options: { readonly urgent?: boolean } = {},
    ): Promise<T[]> {
      if (count === 0) return Promise.resolve([]);
      return new Promise<T[]>((resolve, reject) => {
        (options.urgent === true ? urgent : normal).jobs.push({
          count,
          work,
          results: [],
          resolve: resolve as (results: unknown[]) => void,
          reject,
        });
        if (!draining) {
          draining = true;
          // Never in the caller's own turn: the caller's I/O (a transaction's first statements) goes first.
          setImmediate(slice);
        }
      });
    },
  };
}
