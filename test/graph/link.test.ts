import { Code } from "@connectrpc/connect";
import test from "ava";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { expectCode, graphClient, storeMemory, testModels } from "./graph-test-kit.js";

// service_link / service_unlink / service_list_relations through core's gRPC port with tenant
// tokens: inverses, idempotency (also concurrent), registry rules with their codes and messages,
// unknown and foreign ids.

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
const store = (title: string, memoryType: Parameters<typeof storeMemory>[2]["memoryType"] = "semantic") =>
  storeMemory(service, tenant, { title, memoryType });

async function edgeRows(a: string, b: string) {
  return service.storage.db.sql<{ id: string; from_id: string; rel_type: string; inverse_of: string }[]>`
    select id, from_id, rel_type, inverse_of from edges
    where (from_id = ${a} and to_id = ${b}) or (from_id = ${b} and to_id = ${a}) order by rel_type`;
}

test("link writes the edge and its inverse, each naming the other", async (t) => {
  const owner = await store("Anna Schmidt", "entity");
  const doc = await store("Quarterly plan");
  const res = await client().link({ fromId: owner, toId: doc, relType: "OWNS" });
  t.not(res.edgeId, res.inverseEdgeId);
  const rows = await edgeRows(owner, doc);
  t.deepEqual(
    rows.map((r) => [r.from_id, r.rel_type]),
    [
      [doc, "OWNED_BY"],
      [owner, "OWNS"],
    ],
  );
  const owns = rows.find((r) => r.rel_type === "OWNS");
  const ownedBy = rows.find((r) => r.rel_type === "OWNED_BY");
  t.is(owns?.id, res.edgeId);
  t.is(ownedBy?.id, res.inverseEdgeId);
  t.is(owns?.inverse_of, res.inverseEdgeId);
  t.is(ownedBy?.inverse_of, res.edgeId);

  const fromOwner = await client().listRelations({ memoryId: owner });
  t.deepEqual(
    fromOwner.outgoing.map((r) => [r.relType, r.to, r.edgeId]),
    [["OWNS", doc, res.edgeId]],
  );
  t.deepEqual(
    fromOwner.incoming.map((r) => [r.relType, r.from]),
    [["OWNED_BY", doc]],
  );
  const fromDoc = await client().listRelations({ memoryId: doc });
  t.deepEqual(
    fromDoc.outgoing.map((r) => [r.relType, r.to]),
    [["OWNED_BY", owner]],
  );
  t.deepEqual(
    fromDoc.incoming.map((r) => [r.relType, r.from]),
    [["OWNS", owner]],
  );
});

test("a symmetric type is its own inverse; linking from the other side returns the same pair", async (t) => {
  const a = await store("Meeting notes Monday");
  const b = await store("Meeting notes Tuesday");
  const first = await client().link({ fromId: a, toId: b, relType: "RELATED_TO" });
  const reverse = await client().link({ fromId: b, toId: a, relType: "RELATED_TO" });
  t.is(reverse.edgeId, first.inverseEdgeId);
  t.is(reverse.inverseEdgeId, first.edgeId);
  t.deepEqual(
    (await edgeRows(a, b)).map((r) => r.rel_type),
    ["RELATED_TO", "RELATED_TO"],
  );
});

test("linking the same triple again returns the same ids and writes nothing", async (t) => {
  const a = await store("Invoice 17");
  const b = await store("Contract 2025");
  const first = await client().link({ fromId: a, toId: b, relType: "REFERENCES" });
  const again = await client().link({ fromId: a, toId: b, relType: "REFERENCES" });
  t.deepEqual(again, first);
  // The inverse spelled out is the same link.
  const inverse = await client().link({ fromId: b, toId: a, relType: "REFERENCED_BY" });
  t.is(inverse.edgeId, first.inverseEdgeId);
  t.is((await edgeRows(a, b)).length, 2);
});

test("twenty concurrent links of one triple (from both sides) agree on one pair", async (t) => {
  const a = await store("Project Phoenix");
  const b = await store("Project Phoenix budget");
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? client().link({ fromId: a, toId: b, relType: "DEPENDS_ON" })
        : client()
            .link({ fromId: b, toId: a, relType: "DEPENDENCY_OF" })
            .then((r) => ({ edgeId: r.inverseEdgeId, inverseEdgeId: r.edgeId })),
    ),
  );
  const ids = new Set(results.map((r) => `${r.edgeId}/${r.inverseEdgeId}`));
  t.is(ids.size, 1);
  t.is((await edgeRows(a, b)).length, 2);
});

test("unlink removes both directions and reports whether anything existed", async (t) => {
  const a = await store("Recipe");
  const b = await store("Cookbook");
  await client().link({ fromId: a, toId: b, relType: "PART_OF" });
  t.deepEqual(await client().unlink({ fromId: a, toId: b, relType: "PART_OF" }), {
    $typeName: "memory.v1.UnlinkResponse",
    deleted: true,
  });
  t.is((await edgeRows(a, b)).length, 0);
  t.false((await client().unlink({ fromId: a, toId: b, relType: "PART_OF" })).deleted);
  // Unlinking by the inverse name removes the same pair.
  await client().link({ fromId: a, toId: b, relType: "PART_OF" });
  t.true((await client().unlink({ fromId: b, toId: a, relType: "HAS_PART" })).deleted);
  t.is((await edgeRows(a, b)).length, 0);
  const relations = await client().listRelations({ memoryId: a });
  t.deepEqual([relations.outgoing, relations.incoming], [[], []]);
});

test("unknown relation type: INVALID_ARGUMENT naming rule rel_type_unknown", async (t) => {
  const a = await store("A");
  const b = await store("B");
  const error = await expectCode(
    t,
    client().link({ fromId: a, toId: b, relType: "LIKES" }),
    Code.InvalidArgument,
  );
  t.regex(error.message, /LIKES is not a registered relation type \(rule rel_type_unknown\)/);
  t.is(error.metadata.rule, "rel_type_unknown");
  t.is(error.field, "rel_type");
  await expectCode(t, client().unlink({ fromId: a, toId: b, relType: "LIKES" }), Code.InvalidArgument);
});

test("malformed relation type: INVALID_ARGUMENT naming the field and the UPPER_SNAKE_CASE pattern", async (t) => {
  const a = await store("C");
  const b = await store("D");
  for (const relType of ["owns", "Owns", "OWNS__X", "_OWNS", "OWNS-X", ""]) {
    const error = await expectCode(t, client().link({ fromId: a, toId: b, relType }), Code.InvalidArgument);
    t.is(error.field, "rel_type", relType);
    t.regex(error.message, /^rel_type: /, relType);
  }
});

test("SUPERSEDES is reserved for update_fact: link and unlink refuse it (rule rel_type_reserved)", async (t) => {
  const a = await store("E");
  const b = await store("F");
  for (const relType of ["SUPERSEDES", "SUPERSEDED_BY"]) {
    const error = await expectCode(t, client().link({ fromId: a, toId: b, relType }), Code.InvalidArgument);
    t.regex(error.message, /reserved \(rule rel_type_reserved\): it is written only by update_fact/);
    t.is(error.metadata.rule, "rel_type_reserved");
    await expectCode(t, client().unlink({ fromId: a, toId: b, relType }), Code.InvalidArgument);
  }
});

test("self-loop: INVALID_ARGUMENT naming rule self_loop", async (t) => {
  const a = await store("G");
  const error = await expectCode(
    t,
    client().link({ fromId: a, toId: a, relType: "RELATED_TO" }),
    Code.InvalidArgument,
  );
  t.regex(error.message, /cannot link memory .* to itself \(rule self_loop\)/);
  t.is(error.metadata.rule, "self_loop");
});

test("shape violation: INVALID_ARGUMENT naming rule shape, the end and the kinds allowed", async (t) => {
  const person = await store("Bernd Maier", "entity");
  const note = await store("A note about nothing");
  const episode = await store("Call with Bernd", "episodic");
  const source = await expectCode(
    t,
    client().link({ fromId: note, toId: person, relType: "OWNS" }),
    Code.InvalidArgument,
  );
  t.regex(
    source.message,
    /OWNS needs a source of kind entity, but memory .* is an entry of memory_type semantic \(rule shape\)/,
  );
  t.is(source.field, "from_id");
  t.is(source.metadata.rule, "shape");
  const target = await expectCode(
    t,
    client().link({ fromId: episode, toId: note, relType: "PRECEDES" }),
    Code.InvalidArgument,
  );
  t.regex(target.message, /PRECEDES needs a target of kind episodic.*\(rule shape\)/);
  t.is(target.field, "to_id");
  // The inverse direction carries the swapped constraint: OWNED_BY needs an entity target.
  await expectCode(
    t,
    client().link({ fromId: person, toId: note, relType: "OWNED_BY" }),
    Code.InvalidArgument,
  );
  await t.notThrowsAsync(client().link({ fromId: note, toId: person, relType: "OWNED_BY" }));
  await t.notThrowsAsync(client().link({ fromId: note, toId: person, relType: "MENTIONS" }));
});

test("unknown ids are NOT_FOUND, and another tenant's ids answer exactly like unknown ones", async (t) => {
  const mine = await store("Mine");
  const theirs = await storeMemory(service, other, { title: "Theirs" });
  const unknown = "00000000-0000-4000-8000-000000000001";
  const calls = (id: string) => [
    client().link({ fromId: mine, toId: id, relType: "RELATED_TO" }),
    client().link({ fromId: id, toId: mine, relType: "RELATED_TO" }),
    client().unlink({ fromId: mine, toId: id, relType: "RELATED_TO" }),
    client().listRelations({ memoryId: id }),
  ];
  const forUnknown = await Promise.all(calls(unknown).map((c) => expectCode(t, c, Code.NotFound)));
  const forForeign = await Promise.all(calls(theirs).map((c) => expectCode(t, c, Code.NotFound)));
  t.deepEqual(
    forForeign.map((e) => ({ ...e, message: e.message.replace(theirs, "ID") })),
    forUnknown.map((e) => ({ ...e, message: e.message.replace(unknown, "ID") })),
  );
  t.is(forUnknown[0]?.message, `memory ${unknown} not found`);
  // Nothing was written in either tenant.
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from edges where from_id = ${theirs} or to_id = ${theirs}`;
  t.is(row?.n, 0);
  // The other tenant's own token still sees its memory.
  await t.notThrowsAsync(graphClient(service, other.token).listRelations({ memoryId: theirs }));
});

test("a read-only token may list relations but not link or unlink (PERMISSION_DENIED)", async (t) => {
  const a = await store("H");
  const b = await store("I");
  const reader = await tenant.issueToken(["read"], "reader");
  const ro = graphClient(service, reader.token);
  await expectCode(t, ro.link({ fromId: a, toId: b, relType: "RELATED_TO" }), Code.PermissionDenied);
  await expectCode(t, ro.unlink({ fromId: a, toId: b, relType: "RELATED_TO" }), Code.PermissionDenied);
  await t.notThrowsAsync(ro.listRelations({ memoryId: a }));
  await t.notThrowsAsync(ro.getGraphSchema({}));
});

test("no token: UNAUTHENTICATED", async (t) => {
  const a = await store("J");
  await expectCode(
    t,
    graphClient(service, "kmt_invalid").listRelations({ memoryId: a }),
    Code.Unauthenticated,
  );
});
