import { LINEAGE_REL_TYPES } from "../../memories/index.js";
import type { Sql, TransactionSql } from "../../store/database.js";

/** Deepest expansion the spec allows (recall `hops` 0 to 3). */
export const MAX_HOPS = 3;
/**
 * Edges followed per node and hop when the caller sets no cap. With 10 seeds and 3 hops the walk
 * looks at no more than 10 + 10·f + 10·f² nodes' edges (f = fan-out), whatever the degree of a hub;
 * bench/graph.ts measures the latency this buys (docs/graph.md).
 */
export const DEFAULT_FAN_OUT = 10;
export const MAX_FAN_OUT = 100;

export interface ExpandNeighboursOptions {
  readonly tenantId: string;
  /** Memory ids to expand from; a superseded id stands for its lineage's version at `asOf`/now. */
  readonly seeds: readonly string[];
  /** 0 to 3; values outside are clamped. */
  readonly hops: number;
  /** Edges followed per node (newest first); default DEFAULT_FAN_OUT, at most MAX_FAN_OUT. */
  readonly fanOut?: number;
  /** Walk the graph as it was at this instant (valid time); unset: the current graph. */
  readonly asOf?: Date;
}

export interface Neighbour {
  readonly memoryId: string;
  /** Shortest distance from any seed (1 to hops). */
  readonly hops: number;
  /** Relation from `fromId` to `memoryId` over which the node was first reached. */
  readonly viaRelType: string;
  readonly fromId: string;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, Math.trunc(value)));

/**
 * Breadth-first expansion from `seeds` over current edges (or those valid at `asOf`), in both
 * directions (each link stores its inverse, so outgoing rows cover both), as one recursive CTE.
 *
 * Each CTE row is a whole BFS level (arrays of ids), which lets the recursive term drop nodes
 * already visited on any path — a per-row recursion would re-expand them and grow as fᴴ per seed.
 * A hub costs at most `fanOut` index entries per visit (LIMIT over edges_current_from_idx).
 * Lineage edges (SUPERSEDES) are not followed: they connect versions of the same fact.
 * Seeds are not returned; a superseded seed stands for its lineage's version valid at T (now or
 * `asOf`). Neighbours need no per-node version check, which would cost a lookup per reached node:
 * edges valid at T join versions valid at T, because closing a version closes its edges (trigger of
 * migration 0041) and update_fact copies them onto the new version.
 * Returned nearest first (by hops), each node once.
 */
export async function expandNeighbours(
  tx: Sql | TransactionSql,
  options: ExpandNeighboursOptions,
): Promise<Neighbour[]> {
  const hops = clamp(options.hops, 0, MAX_HOPS);
  const fanOut = clamp(options.fanOut ?? DEFAULT_FAN_OUT, 1, MAX_FAN_OUT);
  if (hops === 0 || options.seeds.length === 0) return [];
  const { tenantId, asOf } = options;
  const lineage = tx.array([...LINEAGE_REL_TYPES]);

  // Validity filters as literal SQL so the planner can pick the partial index for the current graph.
  const edgeValid = asOf
    ? tx`e.valid_from <= ${asOf} and (e.valid_to is null or e.valid_to > ${asOf})`
    : tx`e.valid_to is null`;
  const versionValid = asOf
    ? tx`v.valid_from <= ${asOf} and (v.valid_to is null or v.valid_to > ${asOf})`
    : tx`v.valid_to is null`;
  const memoryValid = asOf
    ? tx`m.valid_from <= ${asOf} and (m.valid_to is null or m.valid_to > ${asOf})`
    : tx`m.valid_to is null`;

  const levels = await tx<{ depth: number; ids: string; froms: string; vias: string }[]>`
    with recursive
    seeds as (
      select coalesce(r.id, m.id) as id
      -- One primary-key lookup per seed (read-candidate-chunks.ts says why OFFSET 0).
      from unnest(${tx.array([...options.seeds])}::uuid[]) as seed(id)
      cross join lateral (
        select * from memories m where m.id = seed.id and m.tenant_id = ${tenantId} offset 0
      ) m
      left join lateral (
        select v.id from memories v
        where not (${memoryValid}) and v.tenant_id = m.tenant_id and v.lineage_id = m.lineage_id
          and ${versionValid}
        order by v.valid_from desc limit 1
      ) r on true
      where (${memoryValid} or r.id is not null)
    ),
    walk(depth, ids, froms, vias, visited) as (
      select 0, array_agg(distinct id), null::uuid[], null::text[], array_agg(distinct id) from seeds
      union all
      select w.depth + 1, n.ids, n.froms, n.vias, w.visited || n.ids
      from walk w
      cross join lateral (
        select array_agg(x.to_id) as ids, array_agg(x.from_id) as froms, array_agg(x.rel_type) as vias
        from (
          select distinct on (c.to_id) c.to_id, c.from_id, c.rel_type
          from unnest(w.ids) as f(id)
          cross join lateral (
            select e.to_id, e.from_id, e.rel_type from edges e
            where e.tenant_id = ${tenantId} and e.from_id = f.id and ${edgeValid}
              and e.rel_type <> all(${lineage}::text[])
            order by e.valid_from desc, e.id
            limit ${fanOut}
          ) c
          -- A hash anti-join: "<> all(visited)" compares every candidate with every visited id.
          where not exists (select 1 from unnest(w.visited) as v(id) where v.id = c.to_id)
          order by c.to_id, c.from_id, c.rel_type
        ) x
      ) n
      where w.depth < ${hops} and n.ids is not null
    )
    select depth, array_to_string(ids, ',') as ids, array_to_string(froms, ',') as froms,
           array_to_string(vias, ',') as vias
    from walk where depth > 0 order by depth`;

  // One row per level with comma-joined ids (uuids and relation names contain no commas): parsing
  // thousands of result rows cost more client CPU than the walk cost the server.
  const out: Neighbour[] = [];
  for (const level of levels) {
    const ids = level.ids.split(",");
    const froms = level.froms.split(",");
    const vias = level.vias.split(",");
    for (let i = 0; i < ids.length; i++) {
      out.push({
        memoryId: ids[i] ?? "",
        hops: level.depth,
        viaRelType: vias[i] ?? "",
        fromId: froms[i] ?? "",
      });
    }
  }
  return out;
}
