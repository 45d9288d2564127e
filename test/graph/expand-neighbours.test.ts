import test from "ava";
import fc from "fast-check";
import { expandNeighbours, type Neighbour } from "../../core/recall/graph/expand-neighbours.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { type FixtureNode, insertEdgePair, insertMemory } from "./graph-fixtures.js";

// The traversal recall calls: bounds, both directions, fan-out cap, lineage edges, point-in-time.
// Graph shapes are built with SQL fixtures so each test controls degrees and validity exactly.

let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

let tenantCounter = 0;
async function newTenant(): Promise<string> {
  tenantCounter++;
  const tenant = await createTenant(database.db.sql, {
    slug: `graph-expand-${process.pid}-${tenantCounter}`,
    name: "expand",
    plan: "api",
  });
  return tenant.id;
}

const expand = (tenantId: string, options: Omit<Parameters<typeof expandNeighbours>[1], "tenantId">) =>
  database.db.withTenant(tenantId, (tx) => expandNeighbours(tx, { tenantId, ...options }));

const byId = (list: Neighbour[]) => new Map(list.map((n) => [n.memoryId, n]));

/** a - b - c - d - e (RELATED_TO), plus f OWNS a. */
async function chain(tenantId: string) {
  const sql = database.db.sql;
  const nodes: FixtureNode[] = [];
  for (let i = 0; i < 5; i++) nodes.push(await insertMemory(sql, tenantId));
  for (let i = 0; i < 4; i++) {
    await insertEdgePair(sql, tenantId, nodes[i]!.id, nodes[i + 1]!.id, "RELATED_TO", "RELATED_TO");
  }
  const owner = await insertMemory(sql, tenantId, { memoryType: "entity" });
  await insertEdgePair(sql, tenantId, owner.id, nodes[0]!.id, "OWNS", "OWNED_BY");
  return { nodes, owner };
}

test("hops bound the walk: each node comes with its shortest distance and the edge that reached it", async (t) => {
  const tenantId = await newTenant();
  const { nodes, owner } = await chain(tenantId);
  const [a, b, c, d] = nodes;
  t.deepEqual(await expand(tenantId, { seeds: [a!.id], hops: 0 }), []);

  const one = await expand(tenantId, { seeds: [a!.id], hops: 1 });
  t.deepEqual(one.map((n) => n.memoryId).sort(), [b!.id, owner.id].sort());
  // Incoming OWNS is followed through its stored inverse: a is OWNED_BY the owner.
  t.deepEqual(byId(one).get(owner.id), {
    memoryId: owner.id,
    hops: 1,
    viaRelType: "OWNED_BY",
    fromId: a!.id,
  });

  const three = byId(await expand(tenantId, { seeds: [a!.id], hops: 3 }));
  t.is(three.size, 4);
  t.deepEqual(three.get(d!.id), { memoryId: d!.id, hops: 3, viaRelType: "RELATED_TO", fromId: c!.id });
  t.false(three.has(a!.id), "seeds are not returned");
});

test("hops above 3 are clamped to 3", async (t) => {
  const tenantId = await newTenant();
  const { nodes } = await chain(tenantId);
  const result = await expand(tenantId, { seeds: [nodes[0]!.id], hops: 9 });
  t.false(
    result.some((n) => n.memoryId === nodes[4]!.id),
    "e is 4 hops away",
  );
  t.true(result.some((n) => n.memoryId === nodes[3]!.id));
});

test("a hub contributes at most fanOut neighbours per visit", async (t) => {
  const tenantId = await newTenant();
  const sql = database.db.sql;
  const hub = await insertMemory(sql, tenantId, { memoryType: "entity" });
  const spokes: FixtureNode[] = [];
  for (let i = 0; i < 40; i++) {
    const spoke = await insertMemory(sql, tenantId);
    spokes.push(spoke);
    // Distinct valid_from so "newest first" is well defined.
    await insertEdgePair(sql, tenantId, spoke.id, hub.id, "MENTIONS", "MENTIONED_BY", {
      validFrom: new Date(Date.UTC(2025, 0, 1, 0, 0, i)),
    });
  }
  const capped = await expand(tenantId, { seeds: [hub.id], hops: 1, fanOut: 5 });
  t.is(capped.length, 5);
  t.deepEqual(
    capped.map((n) => n.memoryId).sort(),
    spokes
      .slice(-5)
      .map((s) => s.id)
      .sort(),
    "the newest edges win",
  );
  const all = await expand(tenantId, { seeds: [hub.id], hops: 1, fanOut: 100 });
  t.is(all.length, 40);
});

test("lineage edges are not followed and superseded seeds resolve to the current version", async (t) => {
  const tenantId = await newTenant();
  const sql = database.db.sql;
  const t0 = new Date("2025-01-01T00:00:00Z");
  const t1 = new Date("2025-02-01T00:00:00Z");
  const v1 = await insertMemory(sql, tenantId, { validFrom: t0, validTo: t1 });
  const v2 = await insertMemory(sql, tenantId, { lineageId: v1.lineageId, validFrom: t1 });
  const oldFriend = await insertMemory(sql, tenantId, { validFrom: t0 });
  const newFriend = await insertMemory(sql, tenantId, { validFrom: t0 });
  await insertEdgePair(sql, tenantId, v2.id, v1.id, "SUPERSEDES", "SUPERSEDED_BY", { validFrom: t1 });
  await insertEdgePair(sql, tenantId, v1.id, oldFriend.id, "RELATED_TO", "RELATED_TO", {
    validFrom: t0,
    validTo: t1,
  });
  await insertEdgePair(sql, tenantId, v2.id, newFriend.id, "RELATED_TO", "RELATED_TO", { validFrom: t1 });

  const now = await expand(tenantId, { seeds: [v1.id], hops: 2 });
  t.deepEqual(
    now.map((n) => n.memoryId),
    [newFriend.id],
  );
  const then = await expand(tenantId, { seeds: [v2.id], hops: 2, asOf: new Date("2025-01-15T00:00:00Z") });
  t.deepEqual(
    then.map((n) => n.memoryId),
    [oldFriend.id],
    "at as_of the seed's lineage is v1, whose edge was valid then",
  );
  const before = await expand(tenantId, { seeds: [v2.id], hops: 2, asOf: new Date("2024-06-01T00:00:00Z") });
  t.deepEqual(before, [], "nothing of the lineage was valid yet");
});

test("closing a version by any writer closes its edges, so traversal never reaches a closed version", async (t) => {
  const tenantId = await newTenant();
  const { nodes, owner } = await chain(tenantId);
  const [a, b, c] = nodes;
  // What upsert-by-title does to a replaced document: only the memory row's valid_to changes.
  const closedAt = new Date();
  await database.db.sql`update memories set valid_to = ${closedAt} where id = ${b!.id}`;
  const edges = await database.db.sql<{ valid_to: Date | null; rel_type: string }[]>`
    select valid_to, rel_type from edges where from_id = ${b!.id} or to_id = ${b!.id}`;
  t.is(edges.length, 4);
  t.true(edges.every((e) => e.valid_to?.getTime() === closedAt.getTime()));
  t.deepEqual(
    (await expand(tenantId, { seeds: [a!.id], hops: 3 })).map((n) => n.memoryId),
    [owner.id],
    "b and everything behind it are gone from the current graph",
  );
  const then = await expand(tenantId, { seeds: [a!.id], hops: 2, asOf: new Date(closedAt.getTime() - 1) });
  t.deepEqual(then.map((n) => n.memoryId).sort(), [b!.id, c!.id, owner.id].sort());
});

test("another tenant's seeds expand to nothing", async (t) => {
  const tenantId = await newTenant();
  const other = await newTenant();
  const { nodes } = await chain(tenantId);
  t.deepEqual(await expand(other, { seeds: [nodes[0]!.id], hops: 3 }), []);
});

// Property: on random graphs, the result equals a reference BFS with the same cap and order.
test("property: matches a reference breadth-first search with fan-out cap on random graphs", async (t) => {
  const tenantId = await newTenant();
  const sql = database.db.sql;
  const size = 30;
  const nodes: FixtureNode[] = [];
  for (let i = 0; i < size; i++) nodes.push(await insertMemory(sql, tenantId));
  const edgeArb = fc.uniqueArray(
    fc.tuple(fc.nat({ max: size - 1 }), fc.nat({ max: size - 1 })).filter(([a, b]) => a !== b),
    { maxLength: 80, selector: ([a, b]) => (a < b ? `${a}-${b}` : `${b}-${a}`) },
  );
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      edgeArb,
      fc.uniqueArray(fc.nat({ max: size - 1 }), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 1, max: 4 }),
      async (pairs, seedIdx, hops, fanOut) => {
        run++;
        await sql`delete from edges where tenant_id = ${tenantId}`;
        // adjacency in "newest first" order, as the index serves it
        const adjacency = new Map<number, number[]>();
        for (const [k, [a, b]] of pairs.entries()) {
          const at = new Date(Date.UTC(2025, 0, 1, 0, run % 60, k));
          await insertEdgePair(sql, tenantId, nodes[a]!.id, nodes[b]!.id, "RELATED_TO", "RELATED_TO", {
            validFrom: at,
          });
          adjacency.set(a, [b, ...(adjacency.get(a) ?? [])]);
          adjacency.set(b, [a, ...(adjacency.get(b) ?? [])]);
        }
        const visited = new Set(seedIdx);
        const expected = new Map<number, number>();
        let frontier = [...new Set(seedIdx)];
        for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
          const next: number[] = [];
          for (const node of frontier) {
            for (const neighbour of (adjacency.get(node) ?? []).slice(0, fanOut)) {
              if (visited.has(neighbour)) continue;
              visited.add(neighbour);
              expected.set(neighbour, depth);
              next.push(neighbour);
            }
          }
          frontier = next;
        }
        const actual = await expand(tenantId, { seeds: seedIdx.map((i) => nodes[i]!.id), hops, fanOut });
        const actualPairs = actual
          .map((n) => [nodes.findIndex((x) => x.id === n.memoryId), n.hops] as const)
          .sort((x, y) => x[0] - y[0]);
        t.deepEqual(
          actualPairs,
          [...expected].sort((x, y) => x[0] - y[0]),
        );
      },
    ),
    { numRuns: 40 },
  );
});
