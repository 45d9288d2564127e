/**
 * Runs the calls of one key one after another, others freely. A session's writes read its turns,
 * write a version and record the turns: two appends at once would each miss the other's turns. A
 * workspace's requests reach one core (ADR 0380), so one process's order is the order.
 */
export function serializeByKey(): <T>(key: string, run: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const result = before.then(run, run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
