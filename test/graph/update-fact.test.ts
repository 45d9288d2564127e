import { Code } from "@connectrpc/connect";
import test from "ava";
import { padToStoredDim } from "../../core/models/pad-to-stored-dim.js";
import { expandNeighbours } from "../../core/recall/graph/expand-neighbours.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { expectCode, graphClient, storeMemory, testModels } from "./graph-test-kit.js";

// service_update_fact through core's gRPC port: the version transition, SUPERSEDES, the edge
// carry-over rule, vectors and outbox, the superseded-target error, concurrency and scope.

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
const sql = () => service.storage.db.sql;
const store = (title: string, memoryType: Parameters<typeof storeMemory>[2]["memoryType"] = "semantic") =>
  storeMemory(service, tenant, { title, memoryType });

interface VersionRow {
  id: string;
  lineage_id: string;
  title: string;
  valid_from: Date;
  valid_to: Date | null;
  recorded_at: Date;
  status: string;
  update_reason: string | null;
}
async function version(id: string): Promise<VersionRow> {
  const [row] = await sql()<VersionRow[]>`
    select id, lineage_id, title, valid_from, valid_to, recorded_at, status, update_reason
    from memories where id = ${id}`;
  if (!row) throw new Error(`no memory ${id}`);
  return row;
}

test("update_fact closes the target, opens a new version of the same lineage and links them with SUPERSEDES", async (t) => {
  const old = await store("Office address");
  const res = await client().updateFact({
    targetId: old,
    newTitle: "Office address",
    newContent: "The office moved to Hafenstraße 12, Hamburg.",
    updateReason: "moved in March",
  });
  t.is(res.oldMemoryId, old);
  t.not(res.newMemoryId, old);
  t.is(res.memory?.memoryId, res.newMemoryId);
  t.is(res.memory?.chunksWritten, 1);
  t.is(res.memory?.embeddingProvider, "test-wordhash-64");

  const before = await version(old);
  const after = await version(res.newMemoryId);
  t.is(after.lineage_id, before.lineage_id);
  t.truthy(before.valid_to);
  t.deepEqual(before.valid_to, after.valid_from, "no gap and no overlap between the versions");
  t.is(after.valid_to, null);
  t.is(after.status, "indexed");
  t.is(after.update_reason, "moved in March");
  t.true(after.recorded_at >= before.recorded_at);

  const [edge] = await sql()<{ from_id: string; to_id: string; rel_type: string }[]>`
    select from_id, to_id, rel_type from edges where id = ${res.supersedesEdge}`;
  t.deepEqual(edge, { from_id: res.newMemoryId, to_id: old, rel_type: "SUPERSEDES" });
  const oldRelations = await client().listRelations({ memoryId: old });
  t.deepEqual(
    oldRelations.outgoing.map((r) => [r.relType, r.to]),
    [["SUPERSEDED_BY", res.newMemoryId]],
  );

  // Chunks and vectors of the old version stop being current; the new ones are.
  const chunks = await sql()<{ memory_id: string; valid_to: Date | null; vector_stored: boolean }[]>`
    select memory_id, valid_to, vector_stored from chunks where memory_id in (${old}, ${res.newMemoryId})`;
  t.true(
    chunks
      .filter((c) => c.memory_id === old)
      .every((c) => c.valid_to?.getTime() === before.valid_to?.getTime()),
  );
  t.true(
    chunks
      .filter((c) => c.memory_id === res.newMemoryId)
      .every((c) => c.valid_to === null && c.vector_stored),
  );
  const [raw] = await service.models.embedder.embed(["office address"], "query");
  const query = padToStoredDim(raw!);
  const hits = await service.storage.vectors.search(tenant.tenantId, "test-wordhash-64", query, 10);
  t.true(hits.some((h) => h.memoryId === res.newMemoryId));
  t.false(
    hits.some((h) => h.memoryId === old),
    "the closed version's vectors no longer match current search",
  );
  const past = await service.storage.vectors.search(tenant.tenantId, "test-wordhash-64", query, 10, {
    asOf: new Date(before.valid_from.getTime() + 1),
  });
  t.true(
    past.some((h) => h.memoryId === old),
    "but still match at an instant it was valid",
  );

  const [event] = await sql()<{ payload: Record<string, unknown> }[]>`
    select payload from outbox where tenant_id = ${tenant.tenantId} and event = 'memory.updated'
      and payload->>'oldMemoryId' = ${old}`;
  t.like(event?.payload, { documentId: res.newMemoryId, oldMemoryId: old, updateReason: "moved in March" });
});

test("edge carry-over: the new version gets the old one's current relations; the old keeps them as history", async (t) => {
  const person = await store("Clara Weiss", "entity");
  const fact = await store("Clara's phone number");
  const note = await store("Call log");
  await client().link({ fromId: person, toId: fact, relType: "OWNS" });
  await client().link({ fromId: note, toId: fact, relType: "REFERENCES" });
  const res = await client().updateFact({
    targetId: fact,
    newTitle: "Clara's phone number",
    newContent: "+49 40 1234",
  });
  const fresh = res.newMemoryId;

  const now = await client().listRelations({ memoryId: fresh });
  t.deepEqual(
    now.outgoing.map((r) => [r.relType, r.to]).sort(),
    [
      ["OWNED_BY", person],
      ["REFERENCED_BY", note],
      ["SUPERSEDES", fact],
    ].sort(),
  );
  t.deepEqual(
    now.incoming.map((r) => [r.relType, r.from]).sort(),
    [
      ["OWNS", person],
      ["REFERENCES", note],
      ["SUPERSEDED_BY", fact],
    ].sort(),
  );
  const personNow = await client().listRelations({ memoryId: person });
  t.deepEqual(
    personNow.outgoing.map((r) => [r.relType, r.to]),
    [["OWNS", fresh]],
    "the neighbour's current edges point at the new version only",
  );

  // History: the old version's edges are closed at the switch instant, not deleted.
  const closed = await sql()<{ valid_to: Date | null }[]>`
    select valid_to from edges where from_id = ${fact} and rel_type <> 'SUPERSEDED_BY'`;
  t.is(closed.length, 2);
  const switchedAt = (
    await sql()<{ valid_from: Date }[]>`select valid_from from memories where id = ${fresh}`
  )[0]?.valid_from;
  t.true(closed.every((e) => e.valid_to?.getTime() === switchedAt?.getTime()));

  // Traversal sees the current graph now and the old graph at an earlier instant.
  const db = service.storage.db;
  const fromPerson = await db.withTenant(tenant.tenantId, (tx) =>
    expandNeighbours(tx, { tenantId: tenant.tenantId, seeds: [person], hops: 2 }),
  );
  t.deepEqual(fromPerson.map((n) => n.memoryId).sort(), [fresh, note].sort());
  const earlier = new Date((switchedAt?.getTime() ?? 0) - 1);
  const fromPersonThen = await db.withTenant(tenant.tenantId, (tx) =>
    expandNeighbours(tx, { tenantId: tenant.tenantId, seeds: [person], hops: 2, asOf: earlier }),
  );
  t.deepEqual(fromPersonThen.map((n) => n.memoryId).sort(), [fact, note].sort());
});

test("updating a superseded version: FAILED_PRECONDITION naming the current version", async (t) => {
  const v1 = await store("Favourite editor");
  const v2 = (await client().updateFact({ targetId: v1, newTitle: "Favourite editor", newContent: "Helix" }))
    .newMemoryId;
  const v3 = (await client().updateFact({ targetId: v2, newTitle: "Favourite editor", newContent: "Neovim" }))
    .newMemoryId;
  for (const stale of [v1, v2]) {
    const error = await expectCode(
      t,
      client().updateFact({ targetId: stale, newTitle: "Favourite editor", newContent: "Emacs" }),
      Code.FailedPrecondition,
    );
    t.is(
      error.message,
      `memory ${stale} was superseded; the current version is ${v3}: read it and update that id instead`,
    );
    t.is(error.reason, "superseded");
    t.is(error.metadata.current_memory_id, v3);
  }
  const [row] = await sql()<{ n: number }[]>`
    select count(*)::int as n from memories where lineage_id = (select lineage_id from memories where id = ${v1})`;
  t.is(row?.n, 3, "the refused updates wrote nothing");
});

test("concurrent updates of one fact: exactly one wins, the others are told the winner's id", async (t) => {
  const target = await store("Team size");
  const results = await Promise.allSettled(
    Array.from({ length: 6 }, (_, i) =>
      client().updateFact({
        targetId: target,
        newTitle: "Team size",
        newContent: `The team has ${10 + i} people.`,
      }),
    ),
  );
  const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  t.is(won.length, 1);
  const winner = won[0]!.newMemoryId;
  for (const r of results) {
    if (r.status === "rejected") {
      t.is((r.reason as { code?: Code }).code, Code.FailedPrecondition);
      t.regex(String((r.reason as Error).message), new RegExp(`current version is ${winner}`));
    }
  }
  const versions = await sql()<{ id: string; valid_to: Date | null }[]>`
    select id, valid_to from memories
    where lineage_id = (select lineage_id from memories where id = ${target}) order by valid_from`;
  t.deepEqual(
    versions.map((v) => [v.id, v.valid_to === null]),
    [
      [target, false],
      [winner, true],
    ],
  );
});

test("concurrent updates of two linked facts keep the link between their current versions", async (t) => {
  const a = await store("Server hostname");
  const b = await store("Server IP address");
  await client().link({ fromId: a, toId: b, relType: "RELATED_TO" });
  const [ra, rb] = await Promise.all([
    client().updateFact({ targetId: a, newTitle: "Server hostname", newContent: "db2.internal" }),
    client().updateFact({ targetId: b, newTitle: "Server IP address", newContent: "10.0.0.7" }),
  ]);
  const relations = await client().listRelations({ memoryId: ra.newMemoryId });
  t.deepEqual(
    relations.outgoing.filter((r) => r.relType === "RELATED_TO").map((r) => r.to),
    [rb.newMemoryId],
  );
  const [stale] = await sql()<{ n: number }[]>`
    select count(*)::int as n from edges e join memories m on m.id in (e.from_id, e.to_id)
    where e.tenant_id = ${tenant.tenantId} and e.valid_to is null and m.valid_to is not null
      and e.rel_type not in ('SUPERSEDES', 'SUPERSEDED_BY')`;
  t.is(stale?.n, 0, "no current edge touches a superseded version");
});

test("links racing an update of their endpoint end up on the current version", async (t) => {
  const fact = await store("Home router model");
  const others = await Promise.all(
    ["Router manual", "ISP contract", "Network diagram"].map((title) => store(title)),
  );
  const [update] = await Promise.all([
    client().updateFact({ targetId: fact, newTitle: "Home router model", newContent: "FritzBox 7590" }),
    ...others.map((other) => client().link({ fromId: other, toId: fact, relType: "REFERENCES" })),
  ]);
  const current = await client().listRelations({ memoryId: update.newMemoryId });
  t.deepEqual(
    current.incoming
      .filter((r) => r.relType === "REFERENCES")
      .map((r) => r.from)
      .sort(),
    [...others].sort(),
    "whichever ran first, each link is on the current version",
  );
  const [stale] = await sql()<{ n: number }[]>`
    select count(*)::int as n from edges where (from_id = ${fact} or to_id = ${fact}) and valid_to is null
      and rel_type not in ('SUPERSEDES', 'SUPERSEDED_BY')`;
  t.is(stale?.n, 0, "no current edge on the superseded version");
});

test("link and unlink given a superseded id act on the current version", async (t) => {
  const v1 = await store("Preferred airline");
  const v2 = (
    await client().updateFact({ targetId: v1, newTitle: "Preferred airline", newContent: "Lufthansa" })
  ).newMemoryId;
  const trip = await store("Trip to Lisbon", "episodic");
  const link = await client().link({ fromId: trip, toId: v1, relType: "REFERENCES" });
  const [edge] = await sql()<{ to_id: string }[]>`select to_id from edges where id = ${link.edgeId}`;
  t.is(edge?.to_id, v2);
  t.deepEqual(await client().link({ fromId: trip, toId: v2, relType: "REFERENCES" }), link, "same triple");
  // Both ids of one lineage resolve to one version: a self-loop.
  const loop = await expectCode(
    t,
    client().link({ fromId: v1, toId: v2, relType: "RELATED_TO" }),
    Code.InvalidArgument,
  );
  t.is(loop.metadata.rule, "self_loop");
  t.true((await client().unlink({ fromId: trip, toId: v1, relType: "REFERENCES" })).deleted);
});

test("update_fact: scope, unknown and foreign ids, empty content, empty title", async (t) => {
  const target = await store("Coffee order");
  const reader = await tenant.issueToken(["read"], "reader");
  const denied = await expectCode(
    t,
    graphClient(service, reader.token).updateFact({ targetId: target, newTitle: "x", newContent: "y" }),
    Code.PermissionDenied,
  );
  t.regex(denied.message, /write/);
  const theirs = await storeMemory(service, other, { title: "Their fact" });
  const unknown = "00000000-0000-4000-8000-0000000000aa";
  for (const id of [theirs, unknown]) {
    const error = await expectCode(
      t,
      client().updateFact({ targetId: id, newTitle: "x", newContent: "y" }),
      Code.NotFound,
    );
    t.is(error.message, `memory ${id} not found`);
  }
  const empty = await expectCode(
    t,
    client().updateFact({ targetId: target, newTitle: "Coffee order", newContent: "  \n" }),
    Code.InvalidArgument,
  );
  t.is(empty.reason, "content_required");
  const title = await expectCode(
    t,
    client().updateFact({ targetId: target, newTitle: "", newContent: "Flat white" }),
    Code.InvalidArgument,
  );
  t.is(title.field, "new_title");
  t.is((await version(target)).valid_to, null, "none of the refused calls touched the target");
  t.is((await version(theirs)).valid_to, null);
});
