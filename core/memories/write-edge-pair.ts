import { randomUUID } from "node:crypto";
import type { TransactionSql } from "../store/database.js";
import type { RelationType } from "./relation-types.js";

export interface EdgePair {
  /** from → to with the requested type. */
  readonly edgeId: string;
  /** to → from with the inverse type. */
  readonly inverseEdgeId: string;
}

/** The edge from → to of `type`, whose inverse runs to → from. */
export interface EdgePairInput {
  readonly tenantId: string;
  readonly fromId: string;
  readonly toId: string;
  readonly type: RelationType;
}

/**
 * Writes an edge and its inverse, each pointing at the other (inverse_of), or finds the pair that
 * already exists: the unique (tenant_id, from_id, to_id, rel_type) plus ON CONFLICT DO NOTHING make
 * a repeated or concurrent link return the first pair's ids instead of a duplicate. The two rows are
 * inserted in a canonical order, so two transactions linking the same pair from either side wait on
 * each other instead of deadlocking.
 */
export async function writeEdgePair(
  tx: TransactionSql,
  input: EdgePairInput & {
    /** Valid-time start; the transaction's now() when unset. */
    readonly validFrom?: Date;
  },
): Promise<EdgePair> {
  const { tenantId, fromId, toId, type } = input;
  const forward = { id: randomUUID(), from: fromId, to: toId, rel: type.name };
  const inverse = { id: randomUUID(), from: toId, to: fromId, rel: type.inverse };
  const key = (r: typeof forward) => `${r.from}|${r.to}|${r.rel}`;
  const [first, second] = key(forward) < key(inverse) ? [forward, inverse] : [inverse, forward];
  const other = (r: typeof forward) => (r === forward ? inverse.id : forward.id);
  const validFrom = input.validFrom ?? null;
  await tx`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from)
    values (${first.id}, ${tenantId}, ${first.from}, ${first.to}, ${first.rel}, ${other(first)},
            coalesce(${validFrom}::timestamptz, now())),
           (${second.id}, ${tenantId}, ${second.from}, ${second.to}, ${second.rel}, ${other(second)},
            coalesce(${validFrom}::timestamptz, now()))
    on conflict (tenant_id, from_id, to_id, rel_type) do nothing`;
  const rows = await tx<{ id: string; from_id: string; rel_type: string }[]>`
    select id, from_id, rel_type from edges
    where tenant_id = ${tenantId}
      and ((from_id = ${fromId} and to_id = ${toId} and rel_type = ${type.name})
        or (from_id = ${toId} and to_id = ${fromId} and rel_type = ${type.inverse}))`;
  const edge = rows.find((r) => r.from_id === fromId && r.rel_type === type.name);
  const reverse = rows.find((r) => r.from_id === toId && r.rel_type === type.inverse);
  if (!edge || !reverse) throw new Error(`edge pair ${fromId} ${type.name} ${toId} is incomplete`);
  return { edgeId: edge.id, inverseEdgeId: reverse.id };
}

/**
 * Removes the current edge from → to of `type` and its inverse (unlink); false when there was none.
 * Closed edges of superseded versions are history and stay.
 */
export async function deleteEdgePair(tx: TransactionSql, input: EdgePairInput): Promise<boolean> {
  const { tenantId, fromId, toId, type } = input;
  const deleted = await tx`
    delete from edges
    where tenant_id = ${tenantId} and valid_to is null
      and ((from_id = ${fromId} and to_id = ${toId} and rel_type = ${type.name})
        or (from_id = ${toId} and to_id = ${fromId} and rel_type = ${type.inverse}))
    returning id`;
  return deleted.length > 0;
}
