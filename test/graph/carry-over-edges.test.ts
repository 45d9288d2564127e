import test from "ava";
import { carryOverEdges } from "../../core/memories/carry-over-edges.js";
import { closeVersions } from "../../core/memories/close-versions.js";
import { lockTenantGraph } from "../../core/memories/graph-lock.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { insertEdgePair, insertMemory } from "./graph-fixtures.js";

// carryOverEdges as upsert-by-title uses it: the new version existed (and may be linked) before the
// old one is closed, at an instant in the past. update_fact's own path is covered in update-fact.test.ts.

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

test("carry-over onto a version that already exists: no duplicates, no self-loop, no edge to a closed neighbour", async (t) => {
  const sql = database.db.sql;
  const { id: tenantId } = await createTenant(sql, {
    slug: `carry-${process.pid}`,
    name: "carry",
    plan: "api",
  });
  const t0 = new Date(Date.now() - 60_000);
  const old = await insertMemory(sql, tenantId, { validFrom: t0, title: "Handbook v1" });
  const fresh = await insertMemory(sql, tenantId, { title: "Handbook v2" });
  const shared = await insertMemory(sql, tenantId, { validFrom: t0 });
  const onlyOld = await insertMemory(sql, tenantId, { validFrom: t0 });
  const neighbour = await insertMemory(sql, tenantId, { validFrom: t0 });
  await insertEdgePair(sql, tenantId, old.id, shared.id, "RELATED_TO", "RELATED_TO", { validFrom: t0 });
  await insertEdgePair(sql, tenantId, fresh.id, shared.id, "RELATED_TO", "RELATED_TO");
  await insertEdgePair(sql, tenantId, onlyOld.id, old.id, "REFERENCES", "REFERENCED_BY", { validFrom: t0 });
  await insertEdgePair(sql, tenantId, fresh.id, old.id, "DERIVED_FROM", "SOURCE_OF");
  await insertEdgePair(sql, tenantId, old.id, neighbour.id, "PART_OF", "HAS_PART", { validFrom: t0 });
  // The neighbour was superseded meanwhile: its edge with the old version is history already.
  await sql`update memories set valid_to = now() where id = ${neighbour.id}`;

  const at = new Date(Date.now() - 30_000);
  const carried = await database.db.withTenant(tenantId, async (tx) => {
    await lockTenantGraph(tx, tenantId, "exclusive");
    await closeVersions(tx, tenantId, [old.id], at);
    return carryOverEdges(tx, { tenantId, oldId: old.id, newId: fresh.id, at });
  });
  t.is(carried, 1, "only the REFERENCES link was new to the fresh version");

  const current = await sql<
    { from_id: string; to_id: string; rel_type: string; id: string; inverse_of: string }[]
  >`
    select id, from_id, to_id, rel_type, inverse_of from edges
    where tenant_id = ${tenantId} and valid_to is null and from_id = ${fresh.id} order by rel_type`;
  t.deepEqual(
    current.map((e) => [e.rel_type, e.to_id]),
    [
      ["REFERENCED_BY", onlyOld.id],
      ["RELATED_TO", shared.id],
    ],
    "the link between the versions closed with the old one and was not turned into a self-loop",
  );
  const referenced = current.find((e) => e.rel_type === "REFERENCED_BY");
  const [inverse] = await sql<{ inverse_of: string; from_id: string; valid_from: Date }[]>`
    select inverse_of, from_id, valid_from from edges where id = ${referenced?.inverse_of ?? null}`;
  t.is(inverse?.inverse_of, referenced?.id, "the copied pair points at itself again");
  t.is(inverse?.from_id, onlyOld.id);
  t.deepEqual(inverse?.valid_from, at);
  const [stale] = await sql<{ n: number }[]>`
    select count(*)::int as n from edges e join memories m on m.id in (e.from_id, e.to_id)
    where e.tenant_id = ${tenantId} and e.valid_to is null and m.valid_to is not null
      and e.rel_type not in ('SUPERSEDES', 'SUPERSEDED_BY')`;
  t.is(stale?.n, 0, "no current edge touches a closed version");
});
