/** One writer's outcome within a batch: its own result or its own error. */
export type Settled<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

export interface GroupCommitOptions {
  /** Longest a first write waits for others to join its batch (while nothing is committing). */
  readonly lingerMs: number;
  /** A batch with at least this many rows commits without waiting out the linger. */
  readonly maxRows: number;
}

/**
 * Coalesces concurrent writes per key (a LanceDB table) into one commit (issue #23: every memory's own
 * commit left its own fragment and version manifest). While a key's batch commits, new writes gather
 * in the next batch, which commits as soon as the first is done; an idle key waits at most `lingerMs`
 * for company. Each caller's promise settles with its own entry of the batch's outcome, so a write is
 * acknowledged only once the commit holding its rows is verified, and an error reaches only the
 * callers `commit` attributes it to.
 */
export function createGroupCommit<I, R>(
  commit: (key: string, items: readonly I[]) => Promise<readonly Settled<R>[]>,
  options: GroupCommitOptions,
): (key: string, item: I, rows: number) => Promise<R> {
  interface Waiter {
    readonly item: I;
    readonly resolve: (value: R) => void;
    readonly reject: (error: unknown) => void;
  }
  interface Queue {
    pending: Waiter[];
    rows: number;
    committing: boolean;
    timer: NodeJS.Timeout | undefined;
  }
  const queues = new Map<string, Queue>();

  const flush = (key: string, queue: Queue): void => {
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = undefined;
    const batch = queue.pending;
    queue.pending = [];
    queue.rows = 0;
    queue.committing = true;
    commit(
      key,
      batch.map((w) => w.item),
    )
      .then(
        (outcomes) => {
          batch.forEach((w, i) => {
            const outcome = outcomes[i];
            if (!outcome) w.reject(new Error("group commit returned no outcome for a write"));
            else if (outcome.ok) w.resolve(outcome.value);
            else w.reject(outcome.error);
          });
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      )
      .finally(() => {
        queue.committing = false;
        if (queue.pending.length > 0) flush(key, queue);
        else queues.delete(key);
      });
  };

  return (key, item, rows) =>
    new Promise<R>((resolve, reject) => {
      let queue = queues.get(key);
      if (!queue) {
        queue = { pending: [], rows: 0, committing: false, timer: undefined };
        queues.set(key, queue);
      }
      queue.pending.push({ item, resolve, reject });
      queue.rows += rows;
      if (queue.committing) return;
      const ready = queue;
      if (ready.rows >= options.maxRows) flush(key, ready);
      else ready.timer ??= setTimeout(() => flush(key, ready), options.lingerMs);
    });
}
