import test from "ava";
import fc from "fast-check";
import { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";

// The one budget for per-workspace state (issue 46): never over its bytes, every evicted entry
// released exactly once, and — the reason it is not an LRU — a hot working set survives sweeps over
// many workspaces that are asked for once.

const operation = fc.oneof(
  fc.record({ op: fc.constant("touch" as const), key: fc.integer({ min: 0, max: 30 }) }),
  fc.record({
    op: fc.constant("admit" as const),
    key: fc.integer({ min: 0, max: 30 }),
    bytes: fc.integer({ min: 1, max: 400 }),
  }),
  fc.record({
    op: fc.constant("resize" as const),
    key: fc.integer({ min: 0, max: 30 }),
    bytes: fc.integer({ min: 1, max: 400 }),
  }),
  fc.record({ op: fc.constant("remove" as const), key: fc.integer({ min: 0, max: 30 }) }),
);

test("never over budget; each held entry released at most once and only when it leaves", (t) => {
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 300 }), (ops) => {
      const budget = new MemoryBudget({ budgetBytes: 1000, windowShare: 0.1 });
      const held = new Map<string, number>();
      for (const o of ops) {
        const key = `k${o.key}`;
        if (o.op === "touch") budget.touch(key);
        else if (o.op === "remove") {
          budget.remove(key);
          held.delete(key);
        } else if (o.op === "resize") {
          if (held.has(key)) {
            budget.resize(key, o.bytes);
            if (budget.has(key)) held.set(key, o.bytes);
          }
        } else {
          held.delete(key);
          const ok = budget.admit(key, o.bytes, () => {
            if (!held.delete(key)) throw new Error(`${key} released twice or while not held`);
          });
          if (ok) held.set(key, o.bytes);
          if (ok !== budget.has(key)) throw new Error("admit's answer and has() disagree");
        }
        if (budget.bytes > 1000) throw new Error(`over budget: ${budget.bytes}`);
        const total = [...held.values()].reduce((a, b) => a + b, 0);
        if (total !== budget.bytes) throw new Error(`owner holds ${total}, budget counts ${budget.bytes}`);
        for (const k of held.keys()) if (!budget.has(k)) throw new Error(`${k} dropped without release`);
      }
    }),
  );
  t.pass();
});

test("an entry larger than the budget is refused", (t) => {
  const budget = new MemoryBudget({ budgetBytes: 100 });
  t.false(budget.admit("big", 101, () => t.fail()));
  t.false(budget.has("big"));
  t.true(budget.admit("small", 1, () => undefined));
});

/** Hit ratio of a policy over a trace where each miss admits the key (as recall does). */
function hitRatio(
  trace: readonly string[],
  sizeOf: (key: string) => number,
  budgetBytes: number,
  lru: boolean,
) {
  let hits = 0;
  if (lru) {
    const order = new Map<string, number>();
    let used = 0;
    for (const key of trace) {
      const bytes = order.get(key);
      if (bytes !== undefined) {
        hits++;
        order.delete(key);
        order.set(key, bytes);
        continue;
      }
      order.set(key, sizeOf(key));
      used += sizeOf(key);
      for (const [k, b] of order) {
        if (used <= budgetBytes) break;
        if (k === key) continue;
        order.delete(k);
        used -= b;
      }
    }
    return hits / trace.length;
  }
  const budget = new MemoryBudget({ budgetBytes });
  for (const key of trace) {
    const held = budget.has(key);
    budget.touch(key);
    if (held) hits++;
    else budget.admit(key, sizeOf(key), () => undefined);
  }
  return hits / trace.length;
}

test("Zipf recalls over many workspaces with sweeps: a higher hit ratio than LRU, the large hot workspace kept", (t) => {
  // 2,000 small workspaces of 1 unit and one large of 100 units, a budget of 300 units: the Zipf
  // head fits, the tail does not. Every 500 recalls a sweep touches 200 cold workspaces once.
  let seed = 46;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const keys = Array.from({ length: 2000 }, (_, i) => `w${i}`);
  keys.splice(5, 0, "large");
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < keys.length; i++) {
    total += 1 / (i + 1);
    cumulative.push(total);
  }
  const draw = () => {
    const r = random() * total;
    let lo = 0;
    while ((cumulative[lo] as number) < r) lo++;
    return keys[lo] as string;
  };
  const trace: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    trace.push(draw());
    if (i % 500 === 499) for (let j = 0; j < 200; j++) trace.push(`cold${i}-${j}`);
  }
  const sizeOf = (key: string) => (key === "large" ? 100 : 1);
  const tinyLfu = hitRatio(trace, sizeOf, 300, false);
  const lru = hitRatio(trace, sizeOf, 300, true);
  t.log(`hit ratio: W-TinyLFU ${tinyLfu.toFixed(3)}, LRU ${lru.toFixed(3)}`);
  t.true(tinyLfu > lru + 0.02, `W-TinyLFU ${tinyLfu} vs LRU ${lru}`);
  // The large workspace's misses: LRU loses it to every sweep, the budget keeps it.
  const largeMisses = (lruPolicy: boolean) => {
    const budget = new MemoryBudget({ budgetBytes: 300 });
    const order = new Map<string, number>();
    let used = 0;
    let misses = 0;
    for (const key of trace) {
      if (lruPolicy) {
        const bytes = order.get(key);
        if (bytes !== undefined) {
          order.delete(key);
          order.set(key, bytes);
          continue;
        }
        if (key === "large") misses++;
        order.set(key, sizeOf(key));
        used += sizeOf(key);
        for (const [k, b] of order) {
          if (used <= 300) break;
          if (k === key) continue;
          order.delete(k);
          used -= b;
        }
      } else {
        const held = budget.has(key);
        budget.touch(key);
        if (!held) {
          if (key === "large") misses++;
          budget.admit(key, sizeOf(key), () => undefined);
        }
      }
    }
    return misses;
  };
  const [kept, lost] = [largeMisses(false), largeMisses(true)];
  t.log(`large workspace misses: W-TinyLFU ${kept}, LRU ${lost}`);
  t.true(kept * 4 < lost, `W-TinyLFU ${kept} vs LRU ${lost}`);
});
