import { randomUUID } from "node:crypto";
import type { TransactionSql } from "../store/database.js";
import { LINEAGE_REL_TYPES } from "./relation-types.js";

/**
 * The edge carry-over rule of update_fact (docs/graph.md): the edges the old version had when it was
 * closed — closed with it by the trigger of migration 0041 — are copied onto the new version with
 * valid_from = `at`, in both directions and paired again. The old version keeps the relations it
 * had (history), the current graph keeps every relation of the fact, and no current edge points at a
 * superseded version. Edges the old version lost earlier (a neighbour was superseded) lead to a
 * closed version and stay history. Lineage edges are not copied. Call after closing the old version and
 * inserting the new one, under lockTenantGraph(…, "exclusive"). A new version that already has the
 * same relation (upsert-by-title replaces a document that was linked meanwhile) keeps its own; links
 * between the two versions are not copied. Returns the number of links carried over.
 */
export async function carryOverEdges(
  tx: TransactionSql,
  input: { readonly tenantId: string; readonly oldId: string; readonly newId: string; readonly at: Date },
): Promise<number> {
  const { tenantId, oldId, newId, at } = input;
  const closed = await tx<
    { id: string; from_id: string; to_id: string; rel_type: string; inverse_of: string | null }[]
  >`
    select e.id, e.from_id, e.to_id, e.rel_type, e.inverse_of from edges e
    join memories other on other.tenant_id = e.tenant_id
      and other.id = (case when e.from_id = ${oldId} then e.to_id else e.from_id end)
    where e.tenant_id = ${tenantId} and (e.from_id = ${oldId} or e.to_id = ${oldId})
      and e.rel_type <> all(${tx.array([...LINEAGE_REL_TYPES])}::text[])
      -- Closed with the old version just now: the other end is still current (an edge closes only
      -- when one of its ends does). Edges to since-superseded neighbours stay history.
      and other.valid_to is null
      -- A link between the two versions would become a self-loop.
      and other.id <> ${newId}`;
  if (closed.length === 0) return 0;
  const copyId = new Map(closed.map((e) => [e.id, randomUUID()]));
  const swap = (id: string) => (id === oldId ? newId : id);
  const copies = closed.map((e) => ({
    id: copyId.get(e.id) ?? randomUUID(),
    from: swap(e.from_id),
    to: swap(e.to_id),
    rel: e.rel_type,
    // Both rows of a pair touch the old version, so both are copied and pair up again.
    inverseOf: (e.inverse_of && copyId.get(e.inverse_of)) || null,
  }));
  const inserted = await tx`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from)
    select c.id, ${tenantId}, c.from_id, c.to_id, c.rel_type, c.inverse_of, ${at}
    from unnest(${tx.array(copies.map((c) => c.id))}::uuid[], ${tx.array(copies.map((c) => c.from))}::uuid[],
                ${tx.array(copies.map((c) => c.to))}::uuid[], ${tx.array(copies.map((c) => c.rel))}::text[],
                ${tx.array(copies.map((c) => c.inverseOf))}::uuid[])
         as c(id, from_id, to_id, rel_type, inverse_of)
    on conflict (tenant_id, from_id, to_id, rel_type) do nothing
    returning id`;
  return Math.ceil(inserted.length / 2);
}
