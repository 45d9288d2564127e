import test from "ava";
import { createTimeSlicedLane } from "../../lib/time-sliced-lane.js";

/** Holds the thread for `ms`, as an embedding of one text does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

test("answers each caller's results in order", async (t) => {
  const lane = createTimeSlicedLane(4);
  const [squares, words, none] = await Promise.all([
    lane.run(5, (i) => i * i),
    lane.run(3, (i) => ["a", "b", "c"][i]),
    lane.run(0, () => 1),
  ]);
  t.deepEqual(squares, [0, 1, 4, 9, 16]);
  t.deepEqual(words, ["a", "b", "c"]);
  t.deepEqual(none, []);
});

test("I/O and timers get a turn between slices, so work queued by many callers cannot hold them", async (t) => {
  const lane = createTimeSlicedLane(4);
  // 64 callers with one 1 ms item each, as 64 concurrent writes' embeddings: 64 ms of work, 16 slices.
  let done = 0;
  const work = Array.from({ length: 64 }, () =>
    lane.run(1, () => {
      busy(1);
      done++;
    }),
  );
  // A timer due at once, as a database answer that has arrived: it runs after the first slice, not
  // after all of them (one immediate per caller ran all 64 before it).
  const doneWhenTimerRan = await new Promise<number>((resolve) => setTimeout(() => resolve(done), 0));
  await Promise.all(work);
  t.true(doneWhenTimerRan < 64, `the timer ran only after all ${doneWhenTimerRan} items`);
  t.is(done, 64);
});

test("a short job is not queued behind a long one, and one failing item fails only its caller", async (t) => {
  const lane = createTimeSlicedLane(2);
  const order: string[] = [];
  const long = lane.run(40, () => busy(0.5)).then(() => order.push("long"));
  const failing = lane.run(3, (i) => {
    if (i === 1) throw new Error("item 1 failed");
    return i;
  });
  const short = lane.run(1, () => "one").then(() => order.push("short"));
  await t.throwsAsync(failing, { message: "item 1 failed" });
  await Promise.all([long, short]);
  t.deepEqual(order, ["short", "long"]);
});

test("an urgent job goes before hundreds of queued ones (a recall's query during a bulk load)", async (t) => {
  const lane = createTimeSlicedLane(2);
  let bulkDone = 0;
  // 400 one-item jobs, as 4 batches of 100 one-chunk memories: 400 × 0.2 ms = 80 ms, 40 slices.
  const bulk = Array.from({ length: 400 }, () =>
    lane.run(1, () => {
      busy(0.2);
      bulkDone++;
    }),
  );
  // Queued after them; round robin alone served it after one item of each of the 400.
  const [query] = await lane.run(1, () => bulkDone, { urgent: true });
  t.true(query !== undefined && query < 20, `the urgent job ran after ${query} of 400 queued items`);
  const [normal] = await lane.run(1, () => bulkDone);
  t.is(normal, 400, "a job that is not urgent still waits its turn behind the queued ones");
  await Promise.all(bulk);
});
