/** Runs at most `limit` tasks at once; the rest wait in call order. */
export type ConcurrencyLimiter = <T>(task: () => Promise<T>) => Promise<T>;

export function limitConcurrency(limit: number): ConcurrencyLimiter {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
