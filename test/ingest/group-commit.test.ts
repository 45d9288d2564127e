import test from "ava";
import { createGroupCommit, type Settled } from "../../core/vectors/group-commit.js";

// The coalescer behind batched LanceDB commits, markIndexed and the shared quota count (issue #23).

function recorder(
  outcome: (items: readonly number[]) => Settled<string>[] = (items) =>
    items.map((i) => ({ ok: true, value: `v${i}` })),
) {
  const batches: number[][] = [];
  let release: (() => void) | undefined;
  const commit = async (_key: string, items: readonly number[]) => {
    batches.push([...items]);
    if (batches.length === 1)
      await new Promise<void>((r) => {
        release = r;
      });
    return outcome(items);
  };
  return { batches, commit, release: () => release?.() };
}

test("writes arriving while a batch commits gather into one next batch", async (t) => {
  const r = recorder();
  const write = createGroupCommit(r.commit, { lingerMs: 1, maxRows: 100 });
  const first = write("table", 0, 1);
  await new Promise((res) => setTimeout(res, 20));
  t.deepEqual(r.batches, [[0]]);
  const rest = [1, 2, 3, 4].map((i) => write("table", i, 1));
  await new Promise((res) => setTimeout(res, 20));
  t.is(r.batches.length, 1, "nothing commits beside a running commit of the same key");
  r.release();
  t.deepEqual(await Promise.all([first, ...rest]), ["v0", "v1", "v2", "v3", "v4"]);
  t.deepEqual(r.batches, [[0], [1, 2, 3, 4]]);
});

test("keys commit independently", async (t) => {
  const batches: string[] = [];
  const write = createGroupCommit<number, number>(
    async (key, items) => {
      batches.push(key);
      return items.map((i) => ({ ok: true, value: i }));
    },
    { lingerMs: 1, maxRows: 100 },
  );
  t.deepEqual(await Promise.all([write("a", 1, 1), write("b", 2, 1), write("a", 3, 1)]), [1, 2, 3]);
  t.deepEqual(batches.sort(), ["a", "b"]);
});

test("each caller gets its own outcome; a thrown commit fails every caller of that batch only", async (t) => {
  const write = createGroupCommit<number, number>(
    async (_key, items) => {
      if (items.includes(99)) throw new Error("commit failed");
      return items.map((i) =>
        i % 2 === 0 ? { ok: true, value: i } : { ok: false, error: new Error(`bad ${i}`) },
      );
    },
    { lingerMs: 1, maxRows: 100 },
  );
  const outcomes = await Promise.allSettled([write("k", 2, 1), write("k", 3, 1)]);
  t.deepEqual(
    outcomes.map((o) => (o.status === "fulfilled" ? o.value : String(o.reason))),
    [2, "Error: bad 3"],
  );
  await t.throwsAsync(write("k", 99, 1), { message: "commit failed" });
  t.is(await write("k", 4, 1), 4, "the key keeps working after a failed batch");
});

test("a batch reaching maxRows commits without waiting out the linger", async (t) => {
  const started = performance.now();
  const write = createGroupCommit<number, number>(
    async (_key, items) => items.map((i) => ({ ok: true, value: i })),
    {
      lingerMs: 10_000,
      maxRows: 3,
    },
  );
  t.deepEqual(await Promise.all([write("k", 1, 1), write("k", 2, 2)]), [1, 2]);
  t.true(performance.now() - started < 5_000);
});
