import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import test from "ava";
import { RELATION_TYPES } from "../../core/memories/relation-types.js";
import { padToStoredDim } from "../../core/models/pad-to-stored-dim.js";
import { expandNeighbours } from "../../core/recall/graph/expand-neighbours.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { graphClient, recallClient, storeMemory, testModels } from "./graph-test-kit.js";

// Bi-temporal data: a fact walked through three updates answers with the right version at four
// instants — in PostgreSQL (the spec's recall_at_time rule), in the vector store and in graph
// expansion — and GetGraphSchema counts the tenant's current graph.

let service: TestService;
let tenant: TestTenant;
let other: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  tenant = await service.createTenant();
  other = await service.createTenant();
});
test.after.always(async () => {
  await service?.stop();
});

const client = () => graphClient(service, tenant.token);

/** Spec service_recall_at_time: valid_from <= as_of and (valid_to > as_of or valid_to unset). */
async function versionsValidAt(lineageOf: string, asOf: Date): Promise<string[]> {
  const rows = await service.storage.db.withTenant(
    tenant.tenantId,
    (tx) => tx<{ id: string }[]>`
      select id from memories
      where tenant_id = ${tenant.tenantId}
        and lineage_id = (select lineage_id from memories where id = ${lineageOf})
        and valid_from <= ${asOf} and (valid_to is null or valid_to > ${asOf})`,
  );
  return rows.map((r) => r.id);
}

test("a fact walked through three updates: each of four instants sees exactly the version valid then", async (t) => {
  const company = await storeMemory(service, tenant, { title: "Acme GmbH", memoryType: "entity" });
  const cities = ["Berlin", "Hamburg", "Munich", "Cologne"];
  const ids = [
    await storeMemory(service, tenant, {
      title: "Acme office",
      content: `Acme's office is in ${cities[0]}.`,
    }),
  ];
  await client().link({ fromId: ids[0]!, toId: company, relType: "ABOUT" });
  for (const city of cities.slice(1)) {
    const res = await client().updateFact({
      targetId: ids.at(-1)!,
      newTitle: "Acme office",
      newContent: `Acme's office is in ${city}.`,
      updateReason: `moved to ${city}`,
    });
    ids.push(res.newMemoryId);
  }

  const rows = await service.storage.db.sql<
    { id: string; valid_from: Date; valid_to: Date | null; recorded_at: Date }[]
  >`select id, valid_from, valid_to, recorded_at from memories where id = any(${ids}::uuid[]) order by valid_from`;
  t.deepEqual(
    rows.map((r) => r.id),
    ids,
  );
  // Contiguous valid time, increasing transaction time, only the last one open.
  for (let i = 1; i < rows.length; i++) {
    t.deepEqual(rows[i - 1]?.valid_to, rows[i]?.valid_from);
    t.true((rows[i]?.recorded_at ?? 0) > (rows[i - 1]?.recorded_at ?? 0));
  }
  t.is(rows.at(-1)?.valid_to, null);

  // One instant inside each version's validity, late enough that the ABOUT link (created after v1)
  // existed: 1 ms before the next version starts, and now for the last one.
  const instants = rows.map((_, i) => new Date((rows[i + 1]?.valid_from.getTime() ?? Date.now() + 1) - 1));
  t.is(instants.length, 4);
  const [raw] = await service.models.embedder.embed(["Acme office"], "query");
  const query = padToStoredDim(raw!);
  for (const [i, asOf] of instants.entries()) {
    t.deepEqual(await versionsValidAt(ids[0]!, asOf), [ids[i]], `rows at instant ${i}`);
    const hits = await service.storage.vectors.search(tenant.tenantId, "test-wordhash-64", query, 10, {
      asOf,
    });
    t.deepEqual(
      [...new Set(hits.map((h) => h.memoryId))].filter((id) => ids.includes(id)),
      [ids[i]],
      `vectors at instant ${i}`,
    );
    const neighbours = await service.storage.db.withTenant(tenant.tenantId, (tx) =>
      expandNeighbours(tx, { tenantId: tenant.tenantId, seeds: [company], hops: 1, asOf }),
    );
    t.deepEqual(
      neighbours.map((n) => [n.memoryId, n.viaRelType]),
      [[ids[i], "SUBJECT_OF"]],
      `graph at instant ${i}`,
    );
    // And end to end: RecallService.Recall with as_of (service_recall_at_time).
    const recalled = await recallClient(service, tenant.token).recall({
      query: "Acme office",
      k: 10,
      hops: 0,
      asOf: timestampFromDate(asOf),
    });
    const versions = recalled.hits.filter((h) => ids.includes(h.memoryId));
    t.deepEqual(
      versions.map((h) => h.memoryId),
      [ids[i]],
      `recall at instant ${i}`,
    );
    t.deepEqual(versions[0]?.validFrom && timestampDate(versions[0].validFrom), rows[i]?.valid_from);
  }
  t.deepEqual(
    await versionsValidAt(ids[0]!, new Date(rows[0]!.valid_from.getTime() - 1)),
    [],
    "before the first",
  );
  const now = await recallClient(service, tenant.token).recall({ query: "Acme office", k: 10, hops: 0 });
  t.deepEqual(
    now.hits.filter((h) => ids.includes(h.memoryId)).map((h) => h.memoryId),
    [ids[3]],
    "current recall sees the newest version only",
  );
  // Current reads see the newest only.
  const current = await service.storage.vectors.search(tenant.tenantId, "test-wordhash-64", query, 10);
  t.deepEqual(
    [...new Set(current.map((h) => h.memoryId))].filter((id) => ids.includes(id)),
    [ids[3]],
  );
});

test("GetGraphSchema counts current nodes and edge rows per type for the caller's tenant only", async (t) => {
  const fresh = await service.createTenant();
  const g = graphClient(service, fresh.token);
  const empty = await g.getGraphSchema({});
  t.is(empty.nodes, 0n);
  t.is(empty.edges, 0n);
  t.deepEqual(empty.edgeTypes, []);

  const person = await storeMemory(service, fresh, { title: "Dora", memoryType: "entity" });
  const note = await storeMemory(service, fresh, { title: "Dora's bike" });
  const other1 = await storeMemory(service, fresh, { title: "Bike shop" });
  await g.link({ fromId: person, toId: note, relType: "OWNS" });
  await g.link({ fromId: note, toId: other1, relType: "RELATED_TO" });
  await g.updateFact({ targetId: note, newTitle: "Dora's bike", newContent: "Dora rides a red bike." });
  // Noise in another tenant must not count.
  const foreign = await storeMemory(service, other, { title: "Elsewhere" });
  const foreign2 = await storeMemory(service, other, { title: "Elsewhere too" });
  await graphClient(service, other.token).link({ fromId: foreign, toId: foreign2, relType: "REFERENCES" });

  const schema = await g.getGraphSchema({});
  t.is(schema.nodes, 3n, "three current versions; the superseded one is history");
  t.deepEqual(
    schema.edgeTypes.map((e) => [e.relType, Number(e.count)]),
    [
      ["OWNED_BY", 1],
      ["OWNS", 1],
      ["RELATED_TO", 2],
      ["SUPERSEDED_BY", 1],
      ["SUPERSEDES", 1],
    ],
  );
  t.is(schema.edges, 6n);
  t.deepEqual(
    schema.relationTypes.map((r) => [
      r.name,
      r.inverse,
      r.symmetric,
      r.sourceKinds,
      r.targetKinds,
      r.allowSelfLoop,
    ]),
    RELATION_TYPES.map((r) => [
      r.name,
      r.inverse,
      r.inverse === r.name,
      [...r.sourceKinds],
      [...r.targetKinds],
      r.allowSelfLoop,
    ]),
  );
  t.true(schema.relationTypes.every((r) => r.description.length > 0));
});

test("the registry is consistent: inverses pair up, names are UPPER_SNAKE_CASE, shapes swap", (t) => {
  const byName = new Map(RELATION_TYPES.map((r) => [r.name, r]));
  t.is(byName.size, RELATION_TYPES.length, "names are unique");
  for (const type of RELATION_TYPES) {
    t.regex(type.name, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    const inverse = byName.get(type.inverse);
    t.truthy(inverse, `${type.name}'s inverse ${type.inverse} is registered`);
    t.is(inverse?.inverse, type.name);
    t.deepEqual(inverse?.sourceKinds, type.targetKinds);
    t.deepEqual(inverse?.targetKinds, type.sourceKinds);
    t.is(inverse?.lineage, type.lineage);
  }
  for (const name of ["OWNS", "REFERENCES", "SUPERSEDES", "FOR_CLIENT", "RELATED_TO", "CONTRADICTS"]) {
    t.true(byName.has(name), name);
  }
  t.deepEqual(
    RELATION_TYPES.filter((r) => r.lineage).map((r) => r.name),
    ["SUPERSEDES", "SUPERSEDED_BY"],
  );
});
