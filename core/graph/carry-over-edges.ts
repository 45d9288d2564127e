import { randomUUID } from "node:crypto";
import type { TransactionSql } from "../store/database.js";
import { LINEAGE_REL_TYPES } from "./relation-types.js";

/**
 * The edge carry-over rule of update_fact (docs/graph.md): the edges the old version had when it was
 * closed at `at` — closed with it by the trigger of migration 0041 — are copied onto the new version
 * with valid_from = `at`, in both directions and paired again. The old version keeps the relations it
 * had (history), the current graph keeps every relation of the fact, and no current edge points at a
 * superseded version. Edges the old version lost earlier (a neighbour was superseded) closed before
 * `at` and stay history. Lineage edges are not copied. Call after closing the old version and
 * inserting the new one, under lockTenantGraph(…, "exclusive"). Returns the number of links copied.
 */
export async function carryOverEdges(
  tx: TransactionSql,
  input: { readonly tenantId: string; readonly oldId: string; readonly newId: string; readonly at: Date },
): Promise<number> {
  const { tenantId, oldId, newId, at } = input;
  const closed = await tx<
    { id: string; from_id: string; to_id: string; rel_type: string; inverse_of: string | null }[]
  >`
    select id, from_id, to_id, rel_type, inverse_of from edges
    where tenant_id = ${tenantId} and (from_id = ${oldId} or to_id = ${oldId}) and valid_to >= ${at}
      and rel_type <> all(${tx.array([...LINEAGE_REL_TYPES])}::text[])`;
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
  await tx`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from)
    select c.id, ${tenantId}, c.from_id, c.to_id, c.rel_type, c.inverse_of, ${at}
    from unnest(${tx.array(copies.map((c) => c.id))}::uuid[], ${tx.array(copies.map((c) => c.from))}::uuid[],
                ${tx.array(copies.map((c) => c.to))}::uuid[], ${tx.array(copies.map((c) => c.rel))}::text[],
                ${tx.array(copies.map((c) => c.inverseOf))}::uuid[])
         as c(id, from_id, to_id, rel_type, inverse_of)`;
  return Math.ceil(closed.length / 2);
}
