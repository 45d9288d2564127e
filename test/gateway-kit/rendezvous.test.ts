import test from "ava";
import fc from "fast-check";
import { rendezvousOrder } from "../../gateway-kit/rendezvous.js";

// ADR 0380: which core a workspace's route key goes to, and where it moves when cores come and go.

const KEYS = Array.from({ length: 4000 }, (_, i) => `route\0workspace-${i}`);
const endpointList = (n: number) => Array.from({ length: n }, (_, i) => `http://core-${i}.internal:50051`);
const owners = (endpoints: readonly string[]) => KEYS.map((k) => rendezvousOrder(k, endpoints)[0]);

test("a key's order is every endpoint once, the same whatever order the endpoints are listed in", (t) => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.webUrl(), { minLength: 1, maxLength: 8 }),
      fc.string(),
      (endpoints, key) => {
        const order = rendezvousOrder(key, endpoints);
        t.deepEqual([...order].sort(), [...endpoints].sort());
        t.deepEqual(rendezvousOrder(key, [...endpoints].reverse()), order);
      },
    ),
    { numRuns: 200 },
  );
});

test("keys spread evenly: each of N endpoints owns about 1/N of them", (t) => {
  for (const n of [2, 3, 5, 8]) {
    const counts = new Map<string, number>();
    for (const owner of owners(endpointList(n))) counts.set(owner ?? "", (counts.get(owner ?? "") ?? 0) + 1);
    t.is(counts.size, n);
    for (const count of counts.values()) {
      const share = count / KEYS.length;
      t.true(Math.abs(share - 1 / n) < 0.035, `n=${n}: share ${share.toFixed(3)}`);
    }
  }
});

test("adding an endpoint moves about 1/(N+1) of the keys, all of them to the new endpoint", (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 7 }), fc.webUrl(), (n, added) => {
      const before = endpointList(n);
      fc.pre(!before.includes(added));
      const after = [...before, added];
      const was = owners(before);
      const now = owners(after);
      let moved = 0;
      for (const [i, owner] of now.entries()) {
        if (owner === was[i]) continue;
        moved++;
        t.is(owner, added, "a key that moves goes to the new endpoint");
      }
      const share = moved / KEYS.length;
      t.true(Math.abs(share - 1 / (n + 1)) < 0.035, `n=${n}: moved ${share.toFixed(3)}`);
    }),
    { numRuns: 12 },
  );
});

test("when an endpoint goes, only its keys move, each to the next endpoint in its order", (t) => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 8 }), fc.nat(), (n, pick) => {
      const endpoints = endpointList(n);
      const gone = endpoints[pick % n] ?? "";
      const rest = endpoints.filter((e) => e !== gone);
      for (const key of KEYS.slice(0, 1000)) {
        const [first, second] = rendezvousOrder(key, endpoints);
        const [now] = rendezvousOrder(key, rest);
        t.is(now, first === gone ? second : first);
      }
    }),
    { numRuns: 12 },
  );
});
