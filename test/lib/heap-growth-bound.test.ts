import { getHeapStatistics } from "node:v8";
import test from "ava";
import { collectStartupGarbage, createHeapGrowthBound } from "../../lib/heap-growth-bound.js";
import { waitFor } from "../helpers/test-service.js";

// The import's and export's guard against V8 letting dead batches pile up (ADR 0201): a full
// collection once the heap grew by the step, none before.

const MB = 2 ** 20;

/** Arrays that stay reachable until `release` is called, so that only a full collection frees them. */
function allocate(bytes: number): { release: () => void } {
  let held: number[][] | undefined = [];
  for (let size = 0; size < bytes; size += 8 * 1024) held.push(new Array<number>(1024).fill(size));
  return {
    release: () => {
      held = undefined;
    },
  };
}

test("no collection while the heap grew less than the step", (t) => {
  const bound = createHeapGrowthBound({ stepBytes: 512 * MB });
  const garbage = allocate(4 * MB);
  t.false(bound());
  garbage.release();
});

test("a heap grown past the step is collected back to its live size", (t) => {
  // From the live heap: garbage left by earlier tests in this worker, collected while `allocate`
  // runs, would otherwise take its size off the growth the bound sees (a CI run measured < 16 MB).
  const bound = createHeapGrowthBound({ stepBytes: 16 * MB, collectFirst: true });
  const garbage = allocate(48 * MB);
  const grown = getHeapStatistics().used_heap_size;
  garbage.release();
  t.true(bound());
  t.true(getHeapStatistics().used_heap_size < grown - 32 * MB);
  // The collection is the new baseline: nothing grew since.
  t.false(bound());
});

test("collectFirst starts from the live heap, not from garbage left before", (t) => {
  const garbage = allocate(48 * MB);
  const grown = getHeapStatistics().used_heap_size;
  garbage.release();
  createHeapGrowthBound({ stepBytes: 512 * MB, collectFirst: true });
  t.true(getHeapStatistics().used_heap_size < grown - 32 * MB);
});

test("collectStartupGarbage frees dead heap and dead buffers left by start-up", async (t) => {
  const garbage = allocate(48 * MB);
  let buffers: Buffer[] | undefined = Array.from({ length: 8 }, () => Buffer.alloc(4 * MB, 1));
  const heap = getHeapStatistics().used_heap_size;
  const external = process.memoryUsage().external;
  garbage.release();
  buffers = undefined;
  t.is(buffers, undefined);
  t.true(collectStartupGarbage());
  t.true(getHeapStatistics().used_heap_size < heap - 32 * MB);
  // Buffers' memory is released by V8's array-buffer sweeper after a collection, on its own time;
  // on Node 24 under load it sometimes waits for the next collection, so the wait collects again
  // now and then (as the running service's own collections would) instead of only watching.
  let polls = 0;
  await waitFor(
    () => {
      if (++polls % 25 === 0) collectStartupGarbage();
      return process.memoryUsage().external < external - 24 * MB ? true : undefined;
    },
    { intervalMs: 20, timeoutMs: 10_000, what: "the dead buffers' memory to be released" },
  );
  t.pass();
});

test("the gc function does not leak into the global scope", (t) => {
  createHeapGrowthBound();
  t.is((globalThis as { gc?: unknown }).gc, undefined);
});
