import test from "ava";
import { limitConcurrency } from "../../core/models/limit-concurrency.js";

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test("no more than `limit` tasks run at once, the rest start in call order", async (t) => {
  const limit = limitConcurrency(2);
  const gates = [deferred(), deferred(), deferred(), deferred()];
  const started: number[] = [];
  const runs = gates.map((gate, i) =>
    limit(async () => {
      started.push(i);
      await gate.promise;
      return i;
    }),
  );
  await Promise.resolve();
  t.deepEqual(started, [0, 1]);
  gates[1]?.resolve();
  await runs[1];
  t.deepEqual(started, [0, 1, 2]);
  gates[0]?.resolve();
  gates[2]?.resolve();
  gates[3]?.resolve();
  t.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
  t.deepEqual(started, [0, 1, 2, 3]);
});

test("a failing task frees its slot", async (t) => {
  const limit = limitConcurrency(1);
  await t.throwsAsync(limit(async () => Promise.reject(new Error("boom"))));
  t.is(await limit(async () => 42), 42);
  t.throws(() => limitConcurrency(0), { instanceOf: RangeError });
});
