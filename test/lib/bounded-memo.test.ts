import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import test from "ava";
import { createBoundedMemo } from "../../lib/bounded-memo.js";

// The built-in models' per-word memos (issue 20: bounded memory while a large import streams words
// seen once): never more than the capacity, and a word in steady use is not computed again.

test("holds at most its capacity and computes a key once while it stays", (t) => {
  const memo = createBoundedMemo<number>(100);
  let computed = 0;
  const square = (key: string) => {
    computed++;
    return Number(key) ** 2;
  };
  t.is(memo.get("7", square), 49);
  t.is(memo.get("7", square), 49);
  t.is(computed, 1);
  for (let i = 0; i < 10_000; i++) memo.get(`x${i}`, () => i);
  t.true(memo.size <= 100, `size ${memo.size}`);
});

test("a key used between one-off keys survives any number of them (the old clear-when-full did not)", (t) => {
  const memo = createBoundedMemo<string>(64);
  let computedHot = 0;
  for (let i = 0; i < 100_000; i++) {
    memo.get(`once-${i}`, (k) => k);
    if (i % 16 === 0)
      memo.get("hot", (k) => {
        computedHot++;
        return k;
      });
  }
  t.is(computedHot, 1);
});

test("null is a value that is kept, and a capacity below 2 is refused", (t) => {
  const memo = createBoundedMemo<string | null>(4);
  let calls = 0;
  const none = () => {
    calls++;
    return null;
  };
  t.is(memo.get("a", none), null);
  t.is(memo.get("a", none), null);
  t.is(calls, 1);
  t.throws(() => createBoundedMemo(1), { instanceOf: RangeError });
});

test("a key cut from a long text is kept as its own copy: the text itself can be collected", (t) => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  setFlagsFromString("--no-expose-gc");
  const memo = createBoundedMemo<string>(4_000);
  const filler = "x".repeat(50_000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2_000; i++) {
    // A 20-character word matched out of a 50 KB text: V8 makes it a view into the text.
    const text = `${filler} zusammensetzung${String(i).padStart(5, "0")} ${filler}`;
    const word = text.match(/zusammensetzung\d+/)?.[0] ?? "";
    // The value is derived from the key the memo hands to compute, as the memo's users do.
    memo.get(word, (own) => own.slice(0, 18));
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.is(memo.size, 2_000);
  // Retaining the texts would be ≈ 2,000 × 100 KB = 190 MB; the words themselves take well under 1 MB.
  t.true(grown < 20 * 2 ** 20, `live heap grew ${Math.round(grown / 2 ** 20)} MB`);
});

test("key spaces keep equal keys apart and share one capacity", (t) => {
  const memo = createBoundedMemo<string>(100, 2);
  t.is(
    memo.get("rat", () => "de:rat", 0),
    "de:rat",
  );
  t.is(
    memo.get("rat", () => "en:rat", 1),
    "en:rat",
  );
  t.is(
    memo.get("rat", () => "computed again", 0),
    "de:rat",
  );
  for (let i = 0; i < 10_000; i++) memo.get(`x${i}`, () => "v", i % 2);
  t.true(memo.size <= 100, `size ${memo.size}`);
  t.throws(() => memo.get("rat", () => "v", 2), { instanceOf: RangeError });
  t.throws(() => createBoundedMemo(10, 0), { instanceOf: RangeError });
});
